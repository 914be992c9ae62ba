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

/// The outcome table: every outcome a record can carry, in exit-code order, with its exit
/// status, finality and class. Names, exits, `--resume`'s finality and `--fail-on`'s
/// classes (with their help, man page and docs rows) all come from here.
pub(crate) const OUTCOMES: [OutcomeRow; 9] = {
    const fn row(name: &'static str, exit: Exit, is_final: bool, class: Class) -> OutcomeRow {
        OutcomeRow {
            name,
            exit,
            is_final,
            class,
        }
    }
    [
        row("SUCCESSFUL", Exit::Successful, true, Class::Paid),
        row("FAILED", Exit::Failed, true, Class::Declined),
        row("NOT_FOUND", Exit::NotFound, true, Class::NotFound),
        row("CHECK_FAILED", Exit::CheckFailed, true, Class::Mismatch),
        row("AUTH_REJECTED", Exit::AuthRejected, false, Class::Fault),
        row("UNAVAILABLE", Exit::Unavailable, false, Class::Unverified),
        row("BAD_RESPONSE", Exit::BadResponse, false, Class::Unverified),
        row("NOT_FINAL", Exit::NotFinal, false, Class::Pending),
        row("INTERNAL_ERROR", Exit::Internal, false, Class::Fault),
    ]
};

/// Every outcome name a record can carry, in exit-code order (the table's names).
pub const OUTCOME_NAMES: [&str; 9] = {
    let mut names = [""; 9];
    let mut i = 0;
    while i < OUTCOMES.len() {
        names[i] = OUTCOMES[i].name;
        i += 1;
    }
    names
};

/// Every outcome name with its exit status, as records carry them (the table's).
pub(crate) const OUTCOME_EXITS: [(&str, Exit); 9] = {
    let mut pairs = [("", Exit::Successful); 9];
    let mut i = 0;
    while i < OUTCOMES.len() {
        pairs[i] = (OUTCOMES[i].name, OUTCOMES[i].exit);
        i += 1;
    }
    pairs
};

/// The table's row for an outcome name.
pub(crate) fn outcome_row(name: &str) -> Option<&'static OutcomeRow> {
    OUTCOMES.iter().find(|row| row.name == name)
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
