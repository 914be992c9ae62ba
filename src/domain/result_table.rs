//! The result table: every result a reconciled row can carry, with its name, exit status,
//! whether `--resume` carries it and its line in `reconcile --help`, as data. Names, exits,
//! resume's finality, summaries and the help's result list (and the man page's) all come
//! from here.

use crate::exit::Exit;

/// One result as the table states it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ResultRow {
    /// The machine-readable name rows carry.
    pub(crate) name: &'static str,
    /// Its exit status (UNVERIFIED's stands for any exit of a row nothing could be
    /// decided for: the row carries its own).
    pub(crate) exit: Exit,
    /// Whether it is final for `--resume`: carried over rather than asked again.
    /// Everything but UNVERIFIED, NOT_FINAL and BOTH_UNPAID (exit 0 on a FAILED answer,
    /// which no seal vouches for: asked again, so no edited record can hide a payment the
    /// shop must refund); the results decided from the input alone
    /// ([`RowResult::decided_from_input`]) are decided again (they ask nothing).
    pub(crate) carried: bool,
    /// Its entry in the help's list of results.
    pub(crate) help: Help,
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

/// Declares [`RowResult`], [`RESULTS`] and [`RESULT_NAMES`] from one list:
/// each variant with its doc, its name, exit, whether it is carried, and its help.
macro_rules! result_table {
    ($(
        $(#[$doc:meta])*
        $variant:ident $(($field:ty = $stand_in:expr))? => $name:literal, $exit:expr,
            carried: $carried:literal, $help:expr;
    )*) => {
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

        /// Every result, in precedence order (UNVERIFIED with the exit that stands for
        /// its own).
        pub(crate) const ALL_RESULTS: [RowResult; RESULT_COUNT] =
            [ $( RowResult::$variant $(($stand_in))?, )* ];

        /// The result table, in precedence order: the order of summaries and counts.
        pub(crate) const RESULTS: [ResultRow; RESULT_COUNT] = [
            $( ResultRow { name: $name, exit: $exit, carried: $carried, help: $help }, )*
        ];

        /// Every result name, in precedence order: the order of summaries and counts.
        pub(crate) const RESULT_NAMES: [&str; RESULT_COUNT] = [ $( $name, )* ];
    };
}

/// How many results there are.
const RESULT_COUNT: usize = 19;

result_table! {
    /// SUCCESSFUL, code 00, the hmac as `--hmac` asks, for this reference, and the amount,
    /// currency and merchant ref the row expects.
    Matched => "MATCHED", Exit::Successful, carried: true, Help::Lines(&[
        "SUCCESSFUL, code 00, hmac per --hmac, this reference, amount,",
        "currency and merchant ref as the row expects",
    ]);
    /// SUCCESSFUL, but the gateway has less than the row expects.
    Underpaid => "UNDERPAID", Exit::CheckFailed, carried: true,
        Help::Labelled("UNDERPAID / OVERPAID", "4", &[
            "SUCCESSFUL, the amount differs (difference in kobo and naira)",
        ]);
    /// SUCCESSFUL, but the gateway has more than the row expects.
    Overpaid => "OVERPAID", Exit::CheckFailed, carried: true, Help::Shared;
    /// SUCCESSFUL with the expected amount, in another currency.
    CurrencyMismatch => "CURRENCY_MISMATCH", Exit::CheckFailed, carried: true,
        Help::Lines(&[]);
    /// SUCCESSFUL with the expected amount and currency, under another merchant reference.
    MerchantRefMismatch => "MERCHANT_REF_MISMATCH", Exit::CheckFailed, carried: true,
        Help::Lines(&[]);
    /// SUCCESSFUL at the gateway (whatever the amount), while the shop's order status says
    /// the order is not paid (Cancelled, Failed, Refunded, Pending payment): money taken
    /// for an order that will not ship; a refund or a re-opened order is due.
    PaidShopUnpaid => "PAID_SHOP_UNPAID", Exit::CheckFailed, carried: true, Help::Lines(&[
        "SUCCESSFUL at the gateway (any amount), while the order status",
        "says not paid (Cancelled, Failed, Refunded, Pending payment...):",
        "money taken for an order that will not ship",
    ]);
    /// SUCCESSFUL as expected, but the answer cannot be trusted: the hmac (with `--hmac
    /// require`), a code other than 00, an answer about another reference, or a WooCommerce
    /// merchantRef that names another order than the row's order id; or, for an order the
    /// shop counts as unpaid, FAILED in an answer that failed any check: nothing is known
    /// of the payment, which BOTH_UNPAID would call safe.
    IntegrityFailed => "INTEGRITY_FAILED", Exit::CheckFailed, carried: true, Help::Lines(&[
        "hmac (with --hmac require), code not 00, another reference,",
        "or a merchantRef <order id>_<unix time> of another order",
        "(also FAILED failing a check, for an order the shop says unpaid)",
    ]);
    /// The gateway says the payment failed, in an answer that passed every check.
    Failed => "FAILED", Exit::Failed, carried: true, Help::Lines(&[
        "(the order status says paid, or nothing: at risk)",
    ]);
    /// FAILED at the gateway, and the shop's order status says not paid: both sides
    /// agree, nothing ships, nothing is at risk.
    BothUnpaid => "BOTH_UNPAID", Exit::Successful, carried: false, Help::Lines(&[
        "FAILED at the gateway, and the order status says not paid: both",
        "agree, not at risk",
    ]);
    /// Not final yet: verify again later.
    NotFinal => "NOT_FINAL", Exit::NotFinal, carried: false, Help::Lines(&[]);
    /// The gateway has no transaction with this reference.
    NotFound => "NOT_FOUND", Exit::NotFound, carried: true, Help::Lines(&[
        "no such transaction at the gateway",
    ]);
    /// The reference already appeared on an earlier row, which was verified.
    Duplicate => "DUPLICATE", Exit::CheckFailed, carried: false, Help::Lines(&[
        "the reference is on an earlier row (verified once, there), or",
        "the payment is, under another of its references",
    ]);
    /// Another row of the order on the rows just above (one row per item, the same order
    /// id, reference, total and currency): the order's result and total are on its first
    /// row; this one adds nothing.
    LineItem => "LINE_ITEM", Exit::Successful, carried: false, Help::Lines(&[
        "one order exported one row per item: a row right below the",
        "order's first with its order id, reference, total and currency;",
        "the order's result and total are on its first row",
    ]);
    /// No reference on a row whose payment method is the gateway's: the order says it was
    /// paid through the gateway, and there is nothing to verify it by.
    NoReference => "NO_REFERENCE", Exit::CheckFailed, carried: false, Help::Lines(&[
        "no reference, and the payment method column names the gateway",
        "(paywithbank3d): nothing to verify the order's payment by",
    ]);
    /// No usable reference or amount on the row.
    InvalidRow => "INVALID_ROW", Exit::Usage, carried: false, Help::Lines(&[
        "empty reference (and no payment method to tell), an amount that",
        "cannot be read, or a currency that is no ISO 4217 code",
    ]);
    /// Nothing could be decided (credentials rejected, service unavailable, a bad
    /// response, a failure of payverify itself): rerun. Carries that outcome's exit.
    Unverified(Exit = Exit::Unavailable) => "UNVERIFIED", Exit::Unavailable, carried: false,
        Help::Labelled("UNVERIFIED", "5, 7, 8", &[
            "credentials rejected, unavailable, bad response: rerun",
        ]);
    /// Not a gateway payment (no reference, another payment method), or left out by
    /// `--only`: listed and counted apart, never at risk, never asked about.
    Skipped => "SKIPPED", Exit::Successful, carried: false, Help::Lines(&[
        "not a gateway payment (no reference, another payment method:",
        "cash on delivery, bank transfer), or left out by --only; never",
        "asked about, counted apart, not at risk",
    ]);
    /// The file's trailing totals row, equal to the sum of the rows above it: never asked
    /// about, never counted.
    Totals => "TOTALS", Exit::Successful, carried: false, Help::Lines(&[
        "the file's last row, no reference, its first cell Total (Grand",
        "total, ...), its amount the sum of the rows above in its currency:",
        "never asked about, never counted",
    ]);
    /// The file's trailing totals row, unequal to the sum of the rows above it: a row is
    /// missing, added or changed.
    TotalsMismatch => "TOTALS_MISMATCH", Exit::CheckFailed, carried: false, Help::Lines(&[
        "such a totals row that does not add up: a row missing, added or",
        "changed",
    ]);
}

impl RowResult {
    /// Its row of the table.
    pub(crate) const fn row(self) -> &'static ResultRow {
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
    /// ([`ResultRow::carried`]).
    pub(crate) fn is_carried(name: &str) -> bool {
        RowResult::named(name).is_some_and(|r| r.row().carried)
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
            Help::Lines(lines) => (row.name, exit.as_str(), lines),
            Help::Labelled(label, exits, lines) => (label, exits, lines),
            Help::Shared => continue,
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

    #[test]
    fn every_result_is_its_row_and_named_once() {
        for (i, result) in ALL_RESULTS.into_iter().enumerate() {
            assert_eq!(result.index(), i, "{result:?}");
            assert_eq!(result.name(), RESULTS[i].name);
            assert_eq!(
                RESULT_NAMES.iter().filter(|n| **n == result.name()).count(),
                1
            );
            // What resume carries it asks about: never a result decided from the input.
            assert!(
                !(result.row().carried && result.decided_from_input()),
                "{result:?}"
            );
        }
        assert_eq!(RowResult::named("UNVERIFIED"), None);
        assert_eq!(RowResult::named("SUCCESSFUL"), None);
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
                usize::from(row.help != Help::Shared),
                "{}",
                row.name
            );
            // A result on another's line follows it, and that line names it.
            if row.help == Help::Shared {
                let Help::Labelled(label, ..) = RESULTS[i - 1].help else {
                    panic!("{} shares no labelled line", row.name);
                };
                assert!(label.contains(row.name), "{label}");
            }
        }
        assert!(
            help.starts_with("  MATCHED                0  SUCCESSFUL, code 00,"),
            "{help}"
        );
    }
}
