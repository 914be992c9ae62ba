//! Outcome classes: what a person has to do about a record, for `verify --fail-on`.
//!
//! Each outcome and reconcile result belongs to one class (the table in
//! [`crate::domain::outcome_table`] says which); `--fail-on CLASS,...` names the classes a
//! scheduled batch's exit status counts, so a declined card does not page anyone while a
//! payment that fails its checks does.

use std::fmt;

/// Declares [`Class`], [`Class::ALL`], [`Class::name`] and [`Class::meaning`] from one list:
/// each class with its doc, the name `--fail-on` takes, and its meaning.
macro_rules! class_table {
    ($( $(#[$doc:meta])* $variant:ident => $name:literal, $meaning:literal; )*) => {
        /// What a record's outcome asks of a person, named as `--fail-on` takes it.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Class {
            $( $(#[$doc])* $variant, )*
        }

        impl Class {
            /// Every class, in the order help lists them (the order of their outcomes' exit
            /// codes).
            pub const ALL: [Class; 7] = [ $( Class::$variant, )* ];

            /// The name `--fail-on` takes and the progress bar shows.
            pub const fn name(self) -> &'static str {
                match self {
                    $( Class::$variant => $name, )*
                }
            }

            /// What a record of this class means for the person reading the run, one line.
            pub const fn meaning(self) -> &'static str {
                match self {
                    $( Class::$variant => $meaning, )*
                }
            }
        }
    };
}

class_table! {
    /// A genuine payment that passed every check.
    Paid => "paid", "a genuine payment, every check passed (exit 0 whatever --fail-on says)";
    /// The service says the payment did not go through, in an answer that passed every
    /// check.
    Declined => "declined", "the service says the payment did not go through (a declined \
        card), in an answer that passed every check: the customer's matter, nothing to fix";
    /// No transaction has the reference.
    NotFound => "not_found",
        "no transaction has the reference: an abandoned checkout, or a wrong reference";
    /// An answer that failed a check: a SUCCESSFUL payment's (CHECK_FAILED), or a FAILED
    /// or NOT_FINAL one's, which then says nothing about the payment.
    Mismatch => "mismatch", "SUCCESSFUL, but a check failed (hmac, code, amount, currency, \
        merchant ref, mode, another reference): do not ship; look at it. A FAILED or NOT_FINAL \
        answer that failed a check keeps its name and exit status but is of this class: it \
        says nothing about the payment";
    /// Not final yet.
    Pending => "pending", "not final yet: verify it again later (--wait, --resume)";
    /// The service could not be asked, or its answer could not be read.
    Unverified => "unverified", "nothing is known: the service could not be asked or its \
        answer could not be read; run it again (--resume)";
    /// The run itself is broken: credentials rejected, or payverify failed.
    Fault => "fault", "the run is broken: the credentials were rejected or payverify failed; \
        always counted, named or not, as exit 2, 6, 10 and 130 are";
}

impl Class {
    /// Whether records of this class count toward the exit status whatever `--fail-on`
    /// names: they say nothing about a payment and everything about the run.
    pub const fn always_counted(self) -> bool {
        matches!(self, Class::Fault)
    }

    /// Whether a record of this class is an answer of the service about a transaction it
    /// knows (of any status): `--fail-on`'s quiet exit needs one to be quiet about.
    pub const fn is_answer(self) -> bool {
        matches!(
            self,
            Class::Paid | Class::Declined | Class::Mismatch | Class::Pending
        )
    }

    /// The class named `name` (any case).
    pub fn parse(name: &str) -> Option<Class> {
        Class::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The classes `--fail-on` names: a batch's exit status is the worst exit among records of
/// these classes (and of the classes always counted), else 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FailOn {
    /// The classes named, each once, in [`Class::ALL`] order.
    named: Vec<Class>,
}

impl FailOn {
    /// Parses `CLASS[,CLASS...]`: names in any case, spaces around them ignored, a name given
    /// twice counted once. An empty value or an empty name between commas is refused, as is a
    /// name that is no class; the message lists the valid names.
    pub(crate) fn parse(value: &str) -> Result<FailOn, String> {
        let valid = Class::ALL.map(Class::name).join(", ");
        if value.trim().is_empty() {
            return Err(format!(
                "names no class; give CLASS[,CLASS...] from: {valid}"
            ));
        }
        let mut named = Vec::new();
        for name in value.split(',').map(str::trim) {
            if name.is_empty() {
                return Err(format!(
                    "{} names an empty class; give CLASS[,CLASS...] from: {valid}",
                    crate::terminal::quoted(value)
                ));
            }
            let class = Class::parse(name).ok_or_else(|| {
                format!(
                    "{} is not an outcome class; the classes are: {valid}",
                    crate::terminal::quoted(name)
                )
            })?;
            // A paid record is exit 0 whatever --fail-on says: naming it counts nothing.
            if class == Class::Paid {
                return Err(
                    "\"paid\" can never count (a paid record is exit 0 whatever --fail-on says); \
                     name the classes a person must act on"
                        .to_owned(),
                );
            }
            if !named.contains(&class) {
                named.push(class);
            }
        }
        named.sort();
        Ok(FailOn { named })
    }

    /// Whether a record of `class` counts toward the exit status.
    pub(crate) fn counts(&self, class: Class) -> bool {
        class.always_counted() || self.named.contains(&class)
    }

    /// The classes named, comma-separated, as the summary line repeats them.
    pub(crate) fn names(&self) -> String {
        self.named
            .iter()
            .map(|c| c.name())
            .collect::<Vec<_>>()
            .join(",")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_in_any_case_and_are_unique() {
        for class in Class::ALL {
            assert_eq!(Class::parse(class.name()), Some(class));
            assert_eq!(Class::parse(&class.name().to_uppercase()), Some(class));
        }
        let mut names = Class::ALL.map(Class::name).to_vec();
        names.dedup();
        assert_eq!(names.len(), Class::ALL.len());
    }

    #[test]
    fn fail_on_parses_lists_and_refuses_empty_and_unknown_names() {
        let f = FailOn::parse(" Mismatch ,unverified,mismatch").unwrap();
        assert_eq!(f.names(), "mismatch,unverified");
        assert!(f.counts(Class::Mismatch) && f.counts(Class::Unverified));
        assert!(!f.counts(Class::Declined) && !f.counts(Class::Paid));
        // Fault is counted whether it is named or not.
        assert!(f.counts(Class::Fault));
        for bad in ["", " "] {
            let e = FailOn::parse(bad).unwrap_err();
            assert!(e.starts_with("names no class"), "{bad:?}: {e}");
        }
        for bad in ["mismatch,", ",mismatch", "mismatch,,unverified"] {
            let e = FailOn::parse(bad).unwrap_err();
            assert!(e.contains("empty class"), "{bad:?}: {e}");
            assert!(e.contains("paid, declined, not_found"), "{e}");
        }
        let e = FailOn::parse("mismatch,FAILED").unwrap_err();
        assert!(e.starts_with("\"FAILED\" is not an outcome class"), "{e}");
    }
}
