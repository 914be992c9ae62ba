//! The one table of outcomes: each outcome verify gives and each result reconcile gives (a
//! name both give, FAILED, NOT_FINAL or NOT_FOUND, once), with its exit, finality, class,
//! carrying by `--resume` and `reconcile --help` lines. It is in reconcile's precedence
//! order; verify's outcomes are put in exit-code order by their exits.
//!
//! A result's class is what a person must do about the row, and follows from its exit as an
//! outcome's does: every exit-0 result (MATCHED and SPLIT_PAID, and BOTH_UNPAID, LINE_ITEM,
//! UNPAID_NO_REFERENCE, SKIPPED and TOTALS, which leave nothing owed or at risk) is paid, so exit 0 is the paid class alone;
//! every exit-4 one is mismatch (look before shipping); INVALID_ROW (exit 2, which
//! `--fail-on` always counts: the input must be fixed) is fault; UNVERIFIED is unverified
//! (rerun), whichever exit it carries.

use crate::domain::class::Class;
use crate::exit::Exit;

/// One entry of the table: an outcome, a result, or a name that is both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OutcomeRow {
    /// The machine-readable name records and rows carry.
    pub(crate) name: &'static str,
    /// Its exit status (UNVERIFIED's stands for any exit of a row nothing could be decided
    /// for: the row carries its own).
    pub(crate) exit: Exit,
    /// Whether it is the service's final word on the transaction (asking again would get
    /// the same answer), as opposed to trouble asking or a status that can still change.
    /// A result decided from the input alone is final too: deciding it again changes nothing.
    pub(crate) is_final: bool,
    /// What a person has to do about it, as `--fail-on` names it.
    pub(crate) class: Class,
    /// Whether `--resume` carries it over rather than asking again. Verify's carries what is
    /// final. Reconcile's carries every final result but BOTH_UNPAID (exit 0 on a FAILED
    /// answer, which no seal vouches for: asked again, so no edited record can hide a
    /// payment the shop must refund) and the results decided from the input alone
    /// (`RowResult::decided_from_input`), which are decided again (they ask nothing).
    pub(crate) carried: bool,
    /// Its entry in `reconcile --help`'s list of results; `None` for an outcome only
    /// verify gives.
    pub(crate) help: Option<Help>,
}

/// A result's entry in the help's list of results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Help {
    /// Its own line: its name, its exit code, then these lines of explanation.
    Lines(&'static [&'static str]),
    /// Its own line under another label and exit codes, then these lines.
    Labelled(&'static str, &'static str, &'static [&'static str]),
    /// On the line of the result before it (whose label names it).
    Shared,
}

/// Declares verify's [`OutcomeKind`], [`OUTCOMES`], [`OUTCOME_NAMES`], [`OUTCOME_EXITS`] and
/// reconcile's [`RowResult`], [`ALL_RESULTS`], [`RESULTS`], [`RESULT_NAMES`] from one list:
/// each entry with its doc, the commands that give it, its variant (with the field it carries
/// and the value standing for it), name, exit, class, finality, carrying and help.
macro_rules! outcome_table {
    // Each entry, made a row, goes to the list of each command it names.
    (@sort $verify:tt $reconcile:tt
        $(#[$doc:meta])* $($command:ident),+ : $variant:ident $(($field:ty = $stand_in:expr))?
            => $name:literal, $exit:ident, $class:ident, final: $final:literal,
            carried: $carried:literal $(, help: $help:ident $(($($lines:tt)*))?)?;
        $($rest:tt)*
    ) => {
        outcome_table!(@to [$($command)+] {
            [$(#[$doc])*] $variant [$(($field = $stand_in))?] $name, Exit::$exit, OutcomeRow {
                name: $name, exit: Exit::$exit, is_final: $final, class: Class::$class,
                carried: $carried, help: outcome_table!(@help $(Help::$help $(($($lines)*))?)?),
            }
        } $verify $reconcile $($rest)*);
    };
    (@to [verify] $entry:tt [$($verify:tt)*] $reconcile:tt $($rest:tt)*) => {
        outcome_table!(@sort [$($verify)* $entry] $reconcile $($rest)*);
    };
    (@to [reconcile] $entry:tt $verify:tt [$($reconcile:tt)*] $($rest:tt)*) => {
        outcome_table!(@sort $verify [$($reconcile)* $entry] $($rest)*);
    };
    (@to [verify reconcile] $entry:tt [$($verify:tt)*] [$($reconcile:tt)*] $($rest:tt)*) => {
        outcome_table!(@sort [$($verify)* $entry] [$($reconcile)* $entry] $($rest)*);
    };
    (@help) => { None };
    (@help $help:expr) => { Some($help) };
    (@sort [$({
        [$(#[$vdoc:meta])*] $verify:ident [] $vname:literal, $vexit:expr, $vrow:expr
    })*] [$({
        [$(#[$doc:meta])*] $variant:ident [$(($field:ty = $stand_in:expr))?] $name:literal,
        $exit:expr, $row:expr
    })*]) => {
        /// How many outcomes there are.
        const OUTCOME_COUNT: usize = [$($vname),*].len();
        /// Verify's exits in the table's order, which place its outcomes ([`exit_rank`]).
        const VERIFY_EXITS: [Exit; OUTCOME_COUNT] = [$($vexit),*];

        /// Every outcome a record can carry: a verdict's kind. Its discriminant is its
        /// place in exit-code order (two outcomes of one exit would not compile).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub(crate) enum OutcomeKind {
            $( $(#[$vdoc])* $verify = exit_rank($vexit), )*
        }

        /// Verify's outcomes in the table's order, for [`in_exit_order`].
        const LISTED: [OutcomeKind; OUTCOME_COUNT] = [$(OutcomeKind::$verify),*];

        impl OutcomeKind {
            /// Every outcome, in exit-code order.
            pub(crate) const ALL: [OutcomeKind; OUTCOME_COUNT] = in_exit_order(LISTED);
        }

        /// Verify's outcomes, in exit-code order: `--resume`'s finality and `--fail-on`'s
        /// classes (with their help, man page and docs rows) come from here.
        pub(crate) const OUTCOMES: [OutcomeRow; OUTCOME_COUNT] = in_exit_order([$($vrow),*]);
        /// Every outcome name a record can carry, in exit-code order: summaries' order.
        pub const OUTCOME_NAMES: [&str; OUTCOME_COUNT] = in_exit_order([$($vname),*]);
        /// Every outcome name with its exit status, as records carry them.
        pub(crate) const OUTCOME_EXITS: [(&str, Exit); OUTCOME_COUNT] =
            in_exit_order([$(($vname, $vexit)),*]);

        /// How many results there are.
        const RESULT_COUNT: usize = [$($name),*].len();

        /// The result of one row, in the precedence (the first that applies wins).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub(crate) enum RowResult {
            $( $(#[$doc])* $variant $(($field))?, )*
        }

        /// Where a result's row is in [`RESULTS`].
        #[derive(Clone, Copy)]
        enum Slot {
            $( $variant, )*
        }

        impl RowResult {
            /// Its place in [`RESULTS`], the precedence order.
            pub(crate) const fn index(self) -> usize {
                (match self {
                    $( RowResult::$variant { .. } => Slot::$variant, )*
                }) as usize
            }
        }

        /// Every result, in precedence order (UNVERIFIED with the exit standing for its own).
        pub(crate) const ALL_RESULTS: [RowResult; RESULT_COUNT] =
            [ $( RowResult::$variant $(($stand_in))?, )* ];
        /// Reconcile's results, in precedence order: the order of summaries and counts.
        pub(crate) const RESULTS: [OutcomeRow; RESULT_COUNT] = [$($row),*];
        /// Every result name, in precedence order: the order of summaries and counts.
        pub(crate) const RESULT_NAMES: [&str; RESULT_COUNT] = [ $( $name, )* ];
    };
    ($($entries:tt)*) => {
        outcome_table!(@sort [] [] $($entries)*);
    };
}

/// An outcome's place in exit-code order: how many of verify's outcomes exit lower.
const fn exit_rank(exit: Exit) -> isize {
    let (mut rank, mut i) = (0, 0);
    while i < VERIFY_EXITS.len() {
        rank += (VERIFY_EXITS[i].code() < exit.code()) as isize;
        i += 1;
    }
    rank
}

/// `listed`, one value per outcome in the table's order, in exit-code order instead.
const fn in_exit_order<T: Copy>(listed: [T; OUTCOME_COUNT]) -> [T; OUTCOME_COUNT] {
    let (mut ordered, mut i) = (listed, 0);
    while i < OUTCOME_COUNT {
        ordered[LISTED[i] as usize] = listed[i];
        i += 1;
    }
    ordered
}

outcome_table! {
    /// SUCCESSFUL, code 00, every requested check passed.
    verify: Successful => "SUCCESSFUL", Successful, Paid, final: true, carried: true;
    /// SUCCESSFUL, code 00, the hmac as `--hmac` asks, for this reference, and the amount,
    /// currency and merchant ref the row expects.
    reconcile: Matched => "MATCHED", Successful, Paid, final: true, carried: true, help: Lines(&[
        "SUCCESSFUL, code 00, hmac per --hmac, this reference, amount,",
        "currency and merchant ref as the row expects",
    ]);
    /// SUCCESSFUL, code 00, every check but the amount passed, for an order whose payment
    /// method names the gateway and another method (`Gift Card + PayWithBank3D`): the
    /// gateway's part, more than nothing and less than the order's total; the other methods
    /// covered the rest. Asked again by `--resume`, as BOTH_UNPAID is: an exit 0 no seal
    /// is checked for here.
    reconcile: SplitPaid => "SPLIT_PAID", Successful, Paid, final: true, carried: false,
        help: Lines(&[
        "SUCCESSFUL as for MATCHED, for an order paid with the gateway and",
        "another method (Gift Card + PayWithBank3D): the gateway's part",
        "less than the total, the other methods the rest",
    ]);
    /// SUCCESSFUL, but a requested check failed.
    verify: CheckFailed => "CHECK_FAILED", CheckFailed, Mismatch, final: true, carried: true;
    /// SUCCESSFUL, but the gateway has less than the row expects.
    reconcile: Underpaid => "UNDERPAID", CheckFailed, Mismatch,
        final: true, carried: true, help: Labelled("UNDERPAID / OVERPAID", "4", &[
        "SUCCESSFUL, the amount differs (difference in kobo and naira)",
    ]);
    /// SUCCESSFUL, but the gateway has more than the row expects.
    reconcile: Overpaid => "OVERPAID", CheckFailed, Mismatch,
        final: true, carried: true, help: Shared;
    /// SUCCESSFUL with the expected amount, in another currency.
    reconcile: CurrencyMismatch => "CURRENCY_MISMATCH", CheckFailed, Mismatch,
        final: true, carried: true, help: Lines(&[]);
    /// SUCCESSFUL with the expected amount and currency, under another merchant reference.
    reconcile: MerchantRefMismatch => "MERCHANT_REF_MISMATCH", CheckFailed, Mismatch,
        final: true, carried: true, help: Lines(&[]);
    /// SUCCESSFUL at the gateway (whatever the amount), while the shop's order status says
    /// the order is not paid (Cancelled, Failed, Refunded, Pending payment): money taken
    /// for an order that will not ship; a refund or a re-opened order is due.
    reconcile: PaidShopUnpaid => "PAID_SHOP_UNPAID", CheckFailed, Mismatch,
        final: true, carried: true, help: Lines(&[
        "SUCCESSFUL at the gateway (any amount), while the order status",
        "says not paid (Cancelled, Failed, Refunded, Pending payment...):",
        "money taken for an order that will not ship",
    ]);
    /// SUCCESSFUL as expected, but the answer cannot be trusted: the hmac (with `--hmac
    /// require`), a code other than 00, an answer about another reference, or a WooCommerce
    /// merchantRef that names another order than the row's order id; or, for an order the
    /// shop counts as unpaid, FAILED in an answer that failed any check: nothing is known
    /// of the payment, which BOTH_UNPAID would call safe.
    reconcile: IntegrityFailed => "INTEGRITY_FAILED", CheckFailed, Mismatch,
        final: true, carried: true, help: Lines(&[
        "hmac (with --hmac require), code not 00, another reference,",
        "or a merchantRef <order id>_<unix time> of another order",
        "(also FAILED failing a check, for an order the shop says unpaid)",
    ]);
    /// The gateway says the payment failed (for reconcile, in an answer that passed every
    /// check).
    verify, reconcile: Failed => "FAILED", Failed, Declined,
        final: true, carried: true, help: Lines(&["(the order status says paid, or nothing: at risk)"]);
    /// FAILED at the gateway, and the shop's order status says not paid: both sides
    /// agree, nothing ships, nothing is at risk.
    reconcile: BothUnpaid => "BOTH_UNPAID", Successful, Paid,
        final: true, carried: false, help: Lines(&[
        "FAILED at the gateway, and the order status says not paid: both",
        "agree, not at risk",
    ]);
    /// Not final yet: verify again later.
    verify, reconcile: NotFinal => "NOT_FINAL", NotFinal, Pending,
        final: false, carried: false, help: Lines(&[]);
    /// The gateway has no transaction with the reference.
    verify, reconcile: NotFound => "NOT_FOUND", NotFound, NotFound,
        final: true, carried: true, help: Lines(&["no such transaction at the gateway"]);
    /// The reference already appeared on an earlier row, which was verified.
    reconcile: Duplicate => "DUPLICATE", CheckFailed, Mismatch,
        final: true, carried: false, help: Lines(&[
        "the reference is on an earlier row (verified once, there), or",
        "the payment is, under another of its references",
    ]);
    /// Another row of the order on the rows just above (one row per item, the same order
    /// id, reference, total and currency): the order's result and total are on its first
    /// row; this one adds nothing.
    reconcile: LineItem => "LINE_ITEM", Successful, Paid,
        final: true, carried: false, help: Lines(&[
        "one order exported one row per item: a row right below the",
        "order's first with its order id, reference, total and currency;",
        "the order's result and total are on its first row",
    ]);
    /// No reference on a row whose payment method is the gateway's: the order says it was
    /// paid through the gateway, and there is nothing to verify it by.
    reconcile: NoReference => "NO_REFERENCE", CheckFailed, Mismatch,
        final: true, carried: false, help: Lines(&[
        "no reference, and the payment method column names the gateway",
        "(paywithbank3d): nothing to verify the order's payment by",
    ]);
    /// No reference, and the row's own status says the order was never paid (pending,
    /// voided, cancelled, failed, abandoned): nothing to verify and nothing owed; not at
    /// risk, not expected money.
    reconcile: UnpaidNoReference => "UNPAID_NO_REFERENCE", Successful, Paid,
        final: true, carried: false, help: Lines(&[
        "no reference, and the order status says never paid (pending,",
        "voided, cancelled, failed, abandoned): nothing to verify, not at",
        "risk, not expected money",
    ]);
    /// No usable reference or amount on the row.
    reconcile: InvalidRow => "INVALID_ROW", Usage, Fault,
        final: true, carried: false, help: Lines(&[
        "empty reference (and no payment method to tell), an amount that",
        "cannot be read, or a currency that is no ISO 4217 code",
    ]);
    /// The credentials were rejected.
    verify: AuthRejected => "AUTH_REJECTED", AuthRejected, Fault, final: false, carried: false;
    /// The service could not be reached or did not answer in time.
    verify: Unavailable => "UNAVAILABLE", Unavailable, Unverified, final: false, carried: false;
    /// The answer is not the service's.
    verify: BadResponse => "BAD_RESPONSE", BadResponse, Unverified, final: false, carried: false;
    /// A failure of payverify itself.
    verify: InternalError => "INTERNAL_ERROR", Internal, Fault, final: false, carried: false;
    /// Nothing could be decided (credentials rejected, service unavailable, a bad
    /// response, a failure of payverify itself): rerun. Carries that outcome's exit.
    reconcile: Unverified(Exit = Exit::Unavailable) => "UNVERIFIED", Unavailable, Unverified,
        final: false, carried: false, help: Labelled("UNVERIFIED", "5, 7, 8", &[
        "credentials rejected, unavailable, bad response: rerun",
    ]);
    /// Not a gateway payment (no reference, another payment method), or left out by
    /// `--only`: listed and counted apart, never at risk, never asked about.
    reconcile: Skipped => "SKIPPED", Successful, Paid, final: true, carried: false, help: Lines(&[
        "not a gateway payment (no reference, another payment method:",
        "cash on delivery, bank transfer), or left out by --only; never",
        "asked about, counted apart, not at risk",
    ]);
    /// The file's trailing totals row, equal to the sum of the rows above it: never asked
    /// about, never counted.
    reconcile: Totals => "TOTALS", Successful, Paid, final: true, carried: false, help: Lines(&[
        "the file's last row, no reference, its first cell Total (Grand",
        "total, ...), its amount the sum of the rows above in its currency:",
        "never asked about, never counted",
    ]);
    /// The file's trailing totals row, unequal to the sum of the rows above it: a row is
    /// missing, added or changed.
    reconcile: TotalsMismatch => "TOTALS_MISMATCH", CheckFailed, Mismatch,
        final: true, carried: false, help: Lines(&[
        "such a totals row that does not add up: a row missing, added or",
        "changed",
    ]);
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
    let width = Class::ALL.iter().map(|c| c.name().len()).max().unwrap_or(0);
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

/// Reconcile's results by class, for `reconcile --help`: what `--fail-on` names.
pub(crate) fn result_class_table() -> String {
    let mut out = String::from(
        "Result classes (--fail-on CLASS[,CLASS...]: the run exits with the most severe exit \
         among rows of the classes named, else 0; fault always counts):\n",
    );
    let width = Class::ALL.iter().map(|c| c.name().len()).max().unwrap_or(0);
    for class in Class::ALL {
        let mut members: Vec<&str> = RESULTS
            .iter()
            .filter(|row| row.class == class)
            .map(|row| row.name)
            .collect();
        if class == Class::Fault {
            members.push("UNVERIFIED with the credentials rejected or payverify failing");
        }
        if !members.is_empty() {
            out.push_str(&format!(
                "  {:<width$}  {}\n",
                class.name(),
                members.join(", ")
            ));
        }
    }
    out
}

impl RowResult {
    /// Its row of the table.
    pub(crate) const fn row(self) -> &'static OutcomeRow {
        &RESULTS[self.index()]
    }

    /// The machine-readable name, one of [`RESULT_NAMES`].
    pub(crate) const fn name(self) -> &'static str {
        self.row().name
    }

    /// The result a name stands for, for a row read back by `--resume` (UNVERIFIED,
    /// whose exit varies, is never carried: `None`). The one reading of a result name.
    pub(crate) fn named(name: &str) -> Option<RowResult> {
        ALL_RESULTS
            .into_iter()
            .filter(|r| !matches!(r, RowResult::Unverified(_)))
            .find(|r| r.name() == name)
    }

    /// Whether the result a name stands for is final for `--resume`
    /// ([`OutcomeRow::carried`]).
    pub(crate) fn is_carried(name: &str) -> bool {
        RowResult::named(name).is_some_and(|r| r.row().carried)
    }

    /// What a person has to do about the row, as `--fail-on` names it: its row's class, but
    /// `fault` for an UNVERIFIED row whose credentials were rejected or that payverify
    /// itself failed, which say nothing of the payment and everything of the run (as
    /// verify's AUTH_REJECTED and INTERNAL_ERROR are).
    pub(crate) fn class(self) -> Class {
        match self {
            RowResult::Unverified(Exit::AuthRejected | Exit::Config | Exit::Internal) => {
                Class::Fault
            }
            other => other.row().class,
        }
    }

    /// The row's exit status; the process exits with the merge of every row's.
    pub(crate) fn exit(self) -> Exit {
        match self {
            RowResult::Unverified(exit) => exit,
            other => other.row().exit,
        }
    }
}

/// The results with their exit codes and meaning, as `reconcile --help` and the man page
/// list them: one line per result (two results may share one), explanations aligned.
pub(crate) fn help_table() -> String {
    /// Where the label and its exit codes end, and the explanation begins.
    const LABEL_WIDTH: usize = 24;
    const INDENT: usize = LABEL_WIDTH + 4;
    let mut out = String::new();
    for (result, row) in ALL_RESULTS.iter().zip(RESULTS) {
        let exit = result.exit().code().to_string();
        let (label, exits, lines) = match row.help {
            Some(Help::Lines(lines)) => (row.name, exit.as_str(), lines),
            Some(Help::Labelled(label, exits, lines)) => (label, exits, lines),
            Some(Help::Shared) | None => continue,
        };
        let pad = LABEL_WIDTH.saturating_sub(label.len());
        out.push_str(&format!("  {label}{exits:>pad$}"));
        for (i, line) in lines.iter().enumerate() {
            match i {
                0 => out.push_str(&format!("  {line}")),
                _ => out.push_str(&format!("\n{:INDENT$}{line}", "")),
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row of both commands, a shared name once per command.
    fn every_row() -> impl Iterator<Item = OutcomeRow> {
        OUTCOMES.into_iter().chain(RESULTS)
    }

    #[test]
    fn every_kind_is_its_row_in_exit_code_order() {
        for (i, kind) in OutcomeKind::ALL.into_iter().enumerate() {
            assert_eq!(kind as usize, i);
            assert_eq!(OutcomeKind::parse(kind.name()), Some(kind));
            assert_eq!(OUTCOME_NAMES[i], kind.name());
            assert_eq!(OUTCOME_EXITS[i], (kind.name(), kind.row().exit));
        }
        // Exit-code order, each exit once: the summaries' contract order.
        assert!(
            OUTCOMES.windows(2).all(|w| w[0].exit < w[1].exit),
            "{OUTCOMES:?}"
        );
        assert_eq!(OUTCOME_NAMES[..3], ["SUCCESSFUL", "FAILED", "NOT_FOUND"]);
        assert_eq!(OutcomeKind::parse("MATCHED"), None);
    }

    #[test]
    fn every_result_is_its_row_and_named_once() {
        for (i, result) in ALL_RESULTS.into_iter().enumerate() {
            assert_eq!(result.index(), i, "{result:?}");
            assert_eq!(result.name(), RESULTS[i].name);
            assert_eq!(
                RESULT_NAMES.iter().filter(|n| **n == result.name()).count(),
                1
            );
        }
        for name in OUTCOME_NAMES {
            assert_eq!(OUTCOME_NAMES.iter().filter(|n| **n == name).count(), 1);
        }
        assert_eq!(RowResult::named("UNVERIFIED"), None);
        assert_eq!(RowResult::named("SUCCESSFUL"), None);
    }

    #[test]
    fn a_name_both_commands_give_is_one_row() {
        let shared: Vec<_> = RESULT_NAMES
            .into_iter()
            .filter(|n| OutcomeKind::parse(n).is_some())
            .collect();
        assert_eq!(shared, ["FAILED", "NOT_FINAL", "NOT_FOUND"]);
        for name in shared {
            let (Some(outcome), Some(result)) = (outcome_row(name), RowResult::named(name)) else {
                panic!("{name} is not in both");
            };
            assert_eq!(outcome, result.row());
            assert_eq!(
                (outcome.exit, is_final_name(name), outcome.carried),
                (
                    result.exit(),
                    result.row().is_final,
                    RowResult::is_carried(name)
                )
            );
        }
    }

    #[test]
    fn the_class_follows_the_exit_and_exit_0_is_paid_alone() {
        for row in every_row() {
            assert_eq!(
                row.exit == Exit::Successful,
                row.class == Class::Paid,
                "{row:?}"
            );
            // An exit --fail-on always counts is of a class it always counts.
            if matches!(row.exit, Exit::Usage | Exit::Config | Exit::Internal) {
                assert!(row.class.always_counted(), "{row:?}");
            }
            for other in every_row().filter(|o| o.exit == row.exit) {
                assert_eq!(other.class, row.class, "{row:?} {other:?}");
            }
        }
        for class in Class::ALL {
            assert!(!class_members(class).is_empty(), "{class} has no outcome");
        }
        let listed: usize = Class::ALL.map(|c| class_members(c).len()).iter().sum();
        assert_eq!(listed, OUTCOMES.len());
        let table = class_table();
        for class in Class::ALL {
            assert!(table.contains(class.meaning()), "{table}");
        }
    }

    #[test]
    fn only_final_rows_are_carried() {
        for row in every_row() {
            assert!(row.is_final || !row.carried, "{row:?}");
        }
        // Verify's --resume carries exactly what is final.
        for row in OUTCOMES {
            assert_eq!(row.carried, row.is_final, "{row:?}");
        }
        // Reconcile's asks again about BOTH_UNPAID and decides again what the input decides.
        for result in ALL_RESULTS {
            let row = result.row();
            let asked_again = matches!(result, RowResult::BothUnpaid | RowResult::SplitPaid)
                || result.decided_from_input();
            assert_eq!(row.carried, row.is_final && !asked_again, "{result:?}");
        }
    }

    #[test]
    fn the_help_lists_every_result_once() {
        let help = help_table();
        for (i, row) in RESULTS.iter().enumerate() {
            let listed = help
                .lines()
                .filter(|l| l.split_whitespace().next() == Some(row.name))
                .count();
            assert_eq!(
                listed,
                usize::from(row.help != Some(Help::Shared)),
                "{}",
                row.name
            );
            // A result on another's line follows it, and that line names it.
            if row.help == Some(Help::Shared) {
                let Some(Help::Labelled(label, ..)) = RESULTS[i - 1].help else {
                    panic!("{} shares no labelled line", row.name);
                };
                assert!(label.contains(row.name), "{label}");
            }
        }
        // Only verify's own outcomes are left out of it.
        for row in OUTCOMES {
            let reconciled = RowResult::named(row.name).is_some();
            assert_eq!(row.help.is_some(), reconciled, "{row:?}");
        }
        assert!(
            help.starts_with("  MATCHED                0  SUCCESSFUL, code 00,"),
            "{help}"
        );
    }
}
