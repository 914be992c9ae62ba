//! The outcome table: every outcome a record can carry, with its exit status, finality and
//! class, as data. Help, the man page and docs/exit-codes.md print the classes from here.

use crate::domain::class::Class;
use crate::exit::Exit;

/// One outcome a record can carry, as the outcome table states it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OutcomeRow {
    /// The machine-readable name records carry.
    pub(crate) name: &'static str,
    /// Its exit status.
    pub(crate) exit: Exit,
    /// Whether it is the service's final word on the transaction (asking again would get
    /// the same answer), as opposed to trouble asking or a status that can still change.
    pub(crate) is_final: bool,
    /// What a person has to do about it, as `--fail-on` names it.
    pub(crate) class: Class,
}

/// Declares [`OutcomeKind`], [`OUTCOMES`], [`OUTCOME_NAMES`] and [`OUTCOME_EXITS`] from one
/// list: each outcome with its doc, name, exit status, finality and class.
macro_rules! outcome_table {
    ($( $(#[$doc:meta])* $variant:ident => $name:literal, $exit:expr, $final:literal, $class:expr; )*) => {
        /// Every outcome a record can carry, in exit-code order: a verdict's kind.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub(crate) enum OutcomeKind {
            $( $(#[$doc])* $variant, )*
        }

        impl OutcomeKind {
            /// Every outcome, in exit-code order.
            pub(crate) const ALL: [OutcomeKind; OUTCOME_COUNT] = [ $( OutcomeKind::$variant, )* ];
        }

        /// The outcome table: every outcome a record can carry, in exit-code order, with its
        /// exit status, finality and class. Names, exits, `--resume`'s finality and
        /// `--fail-on`'s classes (with their help, man page and docs rows) all come from here.
        pub(crate) const OUTCOMES: [OutcomeRow; OUTCOME_COUNT] = [
            $( OutcomeRow { name: $name, exit: $exit, is_final: $final, class: $class }, )*
        ];

        /// Every outcome name a record can carry, in exit-code order (the table's names).
        pub const OUTCOME_NAMES: [&str; OUTCOME_COUNT] = [ $( $name, )* ];

        /// Every outcome name with its exit status, as records carry them (the table's).
        pub(crate) const OUTCOME_EXITS: [(&str, Exit); OUTCOME_COUNT] = [ $( ($name, $exit), )* ];
    };
}

/// How many outcomes there are.
const OUTCOME_COUNT: usize = 9;

outcome_table! {
    /// SUCCESSFUL, code 00, every requested check passed.
    Successful => "SUCCESSFUL", Exit::Successful, true, Class::Paid;
    /// The gateway says the payment failed.
    Failed => "FAILED", Exit::Failed, true, Class::Declined;
    /// The gateway has no transaction with the reference.
    NotFound => "NOT_FOUND", Exit::NotFound, true, Class::NotFound;
    /// SUCCESSFUL, but a requested check failed.
    CheckFailed => "CHECK_FAILED", Exit::CheckFailed, true, Class::Mismatch;
    /// The credentials were rejected.
    AuthRejected => "AUTH_REJECTED", Exit::AuthRejected, false, Class::Fault;
    /// The service could not be reached or did not answer in time.
    Unavailable => "UNAVAILABLE", Exit::Unavailable, false, Class::Unverified;
    /// The answer is not the service's.
    BadResponse => "BAD_RESPONSE", Exit::BadResponse, false, Class::Unverified;
    /// Not final yet: verify again later.
    NotFinal => "NOT_FINAL", Exit::NotFinal, false, Class::Pending;
    /// A failure of payverify itself.
    InternalError => "INTERNAL_ERROR", Exit::Internal, false, Class::Fault;
}

impl OutcomeKind {
    /// Its row of the table.
    pub(crate) const fn row(self) -> &'static OutcomeRow {
        &OUTCOMES[self as usize]
    }

    /// The machine-readable name records carry.
    pub(crate) const fn name(self) -> &'static str {
        self.row().name
    }

    /// The outcome a name stands for: the one reading of an outcome name.
    pub(crate) fn parse(name: &str) -> Option<OutcomeKind> {
        OutcomeKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The transaction status a record of this outcome shows: SUCCESSFUL for SUCCESSFUL
    /// and CHECK_FAILED, FAILED for FAILED; `None` for the rest.
    pub(crate) fn gateway_status(self) -> Option<&'static str> {
        match self {
            OutcomeKind::Successful | OutcomeKind::CheckFailed => {
                Some(OutcomeKind::Successful.name())
            }
            OutcomeKind::Failed => Some(OutcomeKind::Failed.name()),
            _ => None,
        }
    }
}

/// The table's row for an outcome name.
pub(crate) fn outcome_row(name: &str) -> Option<&'static OutcomeRow> {
    OutcomeKind::parse(name).map(OutcomeKind::row)
}

/// Whether an outcome is the service's final word on the transaction (asking again would
/// get the same answer), as opposed to trouble asking or a status that can still change.
pub(crate) fn is_final_name(name: &str) -> bool {
    outcome_row(name).is_some_and(|row| row.is_final)
}

/// The outcomes of `class`, in exit-code order.
pub fn class_members(class: Class) -> Vec<&'static str> {
    OUTCOMES
        .iter()
        .filter(|row| row.class == class)
        .map(|row| row.name)
        .collect()
}

/// The outcome classes with their members and meaning as plain text, for `verify --help`.
pub(crate) fn class_table() -> String {
    let mut out = String::from(
        "Outcome classes (--fail-on CLASS[,CLASS...]: a batch exits with the worst exit among \
         records of the classes named, else 0):\n",
    );
    let width = Class::ALL
        .map(|c| c.name().len())
        .into_iter()
        .max()
        .unwrap_or(0);
    for class in Class::ALL {
        out.push_str(&format!(
            "  {:<width$}  {}: {}\n",
            class.name(),
            class_members(class).join(", "),
            class.meaning()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_its_row() {
        for (i, kind) in OutcomeKind::ALL.into_iter().enumerate() {
            assert_eq!(kind as usize, i);
            assert_eq!(OutcomeKind::parse(kind.name()), Some(kind));
        }
        assert_eq!(OutcomeKind::parse("MATCHED"), None);
    }

    #[test]
    fn every_class_has_members_and_every_outcome_one_class() {
        for class in Class::ALL {
            assert!(!class_members(class).is_empty(), "{class} has no outcome");
        }
        let listed: usize = Class::ALL.map(|c| class_members(c).len()).iter().sum();
        assert_eq!(listed, OUTCOMES.len());
        // Exit 0 is the paid class alone, and exit 10 is never left out.
        for row in OUTCOMES {
            assert_eq!(
                row.exit == Exit::Successful,
                row.class == Class::Paid,
                "{row:?}"
            );
            if row.exit == Exit::Internal {
                assert!(row.class.always_counted(), "{row:?}");
            }
        }
        let table = class_table();
        for class in Class::ALL {
            assert!(table.contains(class.meaning()), "{table}");
        }
    }
}
