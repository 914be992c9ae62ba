//! Which of the file's columns holds what: each role (reference, amount, currency, ...) by
//! the flag or profile key that names its column, or else by the header names the known
//! exports use (WooCommerce and its export plugins, Shopify, card settlement files).

use super::*;
use crate::exit::Failure;
use crate::terminal;

/// What a column is read for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Reference,
    Amount,
    Currency,
    MerchantRef,
    OrderId,
    PaymentMethod,
    Status,
}

/// Every role, in the order messages name them.
pub(crate) const ROLES: [Role; 7] = [
    Role::Reference,
    Role::Amount,
    Role::Currency,
    Role::MerchantRef,
    Role::OrderId,
    Role::PaymentMethod,
    Role::Status,
];

impl Role {
    /// What messages call the column, the flag that names it (when there is one) and the
    /// header names tried, in order (compared [`normalized`]).
    fn about(self) -> (&'static str, Option<&'static str>, &'static [&'static str]) {
        match self {
            Role::Reference => ("reference", Some("--reference-column"), &REFERENCE_NAMES),
            Role::Amount => ("amount", Some("--amount-column"), &AMOUNT_NAMES),
            Role::Currency => ("currency", Some("--currency-column"), &CURRENCY_NAMES),
            Role::MerchantRef => (
                "merchant ref",
                Some("--merchant-ref-column"),
                &MERCHANT_REF_NAMES,
            ),
            Role::OrderId => ("order id", None, &ORDER_ID_NAMES),
            Role::PaymentMethod => ("payment method", None, &PAYMENT_METHOD_NAMES),
            Role::Status => ("order status", None, &STATUS_NAMES),
        }
    }

    /// What messages call the column.
    pub(crate) fn what(self) -> &'static str {
        self.about().0
    }

    /// The flag that names the column, when there is one.
    pub(crate) fn flag(self) -> Option<&'static str> {
        self.about().1
    }

    /// The header names tried, in order.
    pub(crate) fn names(self) -> &'static [&'static str] {
        self.about().2
    }

    /// Whether a file without this column cannot be reconciled.
    fn required(self) -> bool {
        matches!(self, Role::Reference | Role::Amount)
    }

    /// Whether two columns that could both be this one are worth a warning: only for the
    /// columns a row's result depends on.
    fn warns(self) -> bool {
        matches!(self, Role::Reference | Role::Amount | Role::Currency)
    }
}

/// The reference: the generic names first (as before), then WooCommerce's `Transaction
/// ID` (the plugin's merchant reference, `<order id>_<unix time>`), settlement files'
/// `Transaction Ref`, and Shopify's `Payment Reference`.
pub(crate) const REFERENCE_NAMES: [&str; 12] = [
    "reference",
    "ref",
    "transaction ref",
    "transactionRef",
    "payment reference",
    "reference number",
    "transaction id",
    "transaction reference",
    "txn ref",
    "txn reference",
    "payment ref",
    "payment references",
];
/// The amount the order expects: the gross. A settlement file's `Settlement Amount` is net
/// of the card fee (MSC) and never matches the gateway's amount, so it is not among them.
pub(crate) const AMOUNT_NAMES: [&str; 12] = [
    "amount",
    "expected amount",
    "amount paid",
    "total",
    "order total",
    "order total amount",
    "transaction amount",
    "total amount",
    "grand total",
    "gross amount",
    "order amount",
    "txn amount",
];
pub(crate) const CURRENCY_NAMES: [&str; 6] = [
    "currency",
    "currency code",
    "order currency",
    "transaction currency",
    "txn currency",
    "ccy",
];
// Never an order id column: a shop's order id is usually only part of the gateway's
// merchantRef (`<order id>_<suffix>`), and a wrong guess would fail every row.
pub(crate) const MERCHANT_REF_NAMES: [&str; 2] = ["merchant ref", "merchant reference"];
/// `Order #` and `Order` normalise to `order`. Shopify's order column is `Name`, taken
/// only in a Shopify export (see [`shopify`]).
pub(crate) const ORDER_ID_NAMES: [&str; 4] = ["order id", "order number", "order no", "order"];
/// WooCommerce exports have both `Payment Method` (its id: `cod`, `bacs`) and `Payment
/// Method Title` (what the customer saw): the id first.
pub(crate) const PAYMENT_METHOD_NAMES: [&str; 4] = [
    "payment method",
    "payment method title",
    "payment gateway",
    "payment type",
];
pub(crate) const STATUS_NAMES: [&str; 5] = [
    "order status",
    "status",
    "financial status",
    "payment status",
    "transaction status",
];

/// Columns that look like a role's but are not it, with why: named when that role's
/// column is missing, so the error says why they were not taken.
const NOT_THE_COLUMN: [(Role, &str, &str); 6] = [
    (
        Role::Reference,
        "rrn",
        "the card network's retrieval reference number, not the gateway's reference",
    ),
    (
        Role::Reference,
        "retrieval reference number",
        "the card network's reference, not the gateway's",
    ),
    (
        Role::Reference,
        "order id",
        "an order number is only the start of the gateway's merchant reference \
         (<order id>_<unix time>), in the Transaction ID column",
    ),
    (
        Role::Reference,
        "order number",
        "an order number is only the start of the gateway's merchant reference \
         (<order id>_<unix time>), in the Transaction ID column",
    ),
    (
        Role::Amount,
        "settlement amount",
        "net of the card fee; the gateway's amount is the gross (Transaction Amount)",
    ),
    (
        Role::Amount,
        "net amount",
        "net of fees; the gateway's amount is the gross",
    ),
];

/// A header name as matched: without a trailing parenthesised part (`First Name
/// (Billing)`, `Amount (NGN)`), then only its letters and digits, lower case: case,
/// spaces, `_`, `-`, `#`, `/`, `.` and the like do not count.
pub(crate) fn normalized(name: &str) -> String {
    let keep = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let mut base = name.trim();
    while let Some(open) = base.strip_suffix(')').and_then(|b| b.rfind('(')) {
        let stripped = base[..open].trim_end();
        if keep(stripped).is_empty() {
            break;
        }
        base = stripped;
    }
    keep(base)
}

/// Where each column the rows are read by is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Columns {
    pub(crate) reference: usize,
    pub(crate) amount: usize,
    pub(crate) currency: Option<usize>,
    pub(crate) merchant_ref: Option<usize>,
    /// Found for what finance reads and what a row is held to: one order on several rows,
    /// its status against the gateway's, a WooCommerce merchantRef against the order id.
    pub(crate) order_id: Option<usize>,
    pub(crate) payment_method: Option<usize>,
    pub(crate) status: Option<usize>,
}

impl Columns {
    /// The column of `role`, if the file has one.
    pub(crate) fn of(&self, role: Role) -> Option<usize> {
        match role {
            Role::Reference => Some(self.reference),
            Role::Amount => Some(self.amount),
            Role::Currency => self.currency,
            Role::MerchantRef => self.merchant_ref,
            Role::OrderId => self.order_id,
            Role::PaymentMethod => self.payment_method,
            Role::Status => self.status,
        }
    }
}

/// A column name given by a flag or a profile key, with where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Given {
    /// The header name as given.
    pub(crate) name: String,
    /// Where: `--reference-column`, or the profile key.
    pub(crate) origin: String,
}

/// Every role's columns in a header row: one, none, or several (ambiguous).
struct Assessment {
    found: Vec<(Role, Vec<usize>)>,
    /// Another column a known name also matched, per role: (used, others).
    doubts: Vec<(Role, usize, Vec<usize>)>,
}

impl Assessment {
    fn of(&self, role: Role) -> &[usize] {
        self.found
            .iter()
            .find(|(r, _)| *r == role)
            .map_or(&[], |(_, f)| f)
    }

    /// How many required roles have a column (one or several).
    fn required_present(&self) -> usize {
        self.found
            .iter()
            .filter(|(r, f)| r.required() && !f.is_empty())
            .count()
    }
}

/// Whether `header` is a Shopify orders export (its order column is `Name`).
fn shopify(normal: &[String]) -> bool {
    ["financialstatus", "lineitemname"]
        .iter()
        .all(|n| normal.iter().any(|h| h == n))
}

fn assess(header: &[String], options: &CsvOptions) -> Assessment {
    let normal: Vec<String> = header.iter().map(|h| normalized(h)).collect();
    let matching = |wanted: &str| -> Vec<usize> {
        let wanted = normalized(wanted);
        (0..header.len()).filter(|&i| normal[i] == wanted).collect()
    };
    let mut found = Vec::new();
    let mut doubts = Vec::new();
    for role in ROLES {
        if role == Role::Currency && options.no_currency_column {
            found.push((role, Vec::new()));
            continue;
        }
        let columns = match options.given(role) {
            // Exact spelling first, so two headers that differ only in case or spacing can
            // still be told apart.
            Some(given) => match header.iter().filter(|h| **h == given.name).count() {
                1 => header
                    .iter()
                    .position(|h| *h == given.name)
                    .into_iter()
                    .collect(),
                _ => matching(&given.name),
            },
            None => {
                let mut names: Vec<&str> = role.names().to_vec();
                if role == Role::OrderId && shopify(&normal) {
                    names.push("name");
                }
                let first = names
                    .iter()
                    .map(|n| matching(n))
                    .find(|m| !m.is_empty())
                    .unwrap_or_default();
                if let [one] = first.as_slice()
                    && role.warns()
                {
                    let others: Vec<usize> = (0..header.len())
                        .filter(|&i| i != *one && names.iter().any(|n| normal[i] == normalized(n)))
                        .collect();
                    if !others.is_empty() {
                        doubts.push((role, *one, others));
                    }
                }
                first
            }
        };
        found.push((role, columns));
    }
    Assessment { found, doubts }
}

/// How many of the required columns (reference, amount) `header` has, for choosing the
/// header row among the first lines of a file.
pub(super) fn required_columns_in(header: &[String], options: &CsvOptions) -> usize {
    assess(header, options).required_present()
}

/// The columns the rows are read by, with the other columns that could be a role's; or one usage error naming every role whose column is missing (or ambiguous),
/// with the header row's names and the flags to use.
pub(super) fn find_columns(
    header: &[String],
    options: &CsvOptions,
    name: &str,
    line: u64,
) -> Result<(Columns, Vec<Doubt>), Failure> {
    let assessment = assess(header, options);
    let listed = || {
        header
            .iter()
            .map(|h| terminal::quoted(h))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut missing = Vec::new();
    let mut problems = Vec::new();
    let mut flags = Vec::new();
    for role in ROLES {
        let given = options.given(role);
        let flag = role.flag().unwrap_or("");
        match (assessment.of(role), given) {
            ([], Some(given)) => {
                problems.push(format!(
                    "no column is named {} ({})",
                    terminal::quoted(&given.name),
                    given.origin
                ));
                flags.push(flag);
            }
            ([], None) if role.required() => {
                missing.push(role);
                flags.push(flag);
            }
            (many @ [_, _, ..], _) => {
                problems.push(format!(
                    "the {} column is ambiguous: columns {} match",
                    role.what(),
                    many.iter()
                        .map(|i| (i + 1).to_string())
                        .collect::<Vec<_>>()
                        .join(" and "),
                ));
                flags.push(flag);
            }
            _ => {}
        }
    }
    if !missing.is_empty() {
        problems.insert(0, missing_columns(header, &missing));
    }
    if !problems.is_empty() {
        let flags: Vec<String> = flags
            .iter()
            .filter(|f| !f.is_empty())
            .map(|f| format!("{f} NAME"))
            .collect();
        return Err(Failure::usage(format!(
            "{name}: {}; its header row (line {line}) has {}; name the columns with {}",
            problems.join("; "),
            listed(),
            and_list(&flags),
        )));
    }
    let one = |role: Role| match assessment.of(role) {
        [i] => Some(*i),
        _ => None,
    };
    let (Some(reference), Some(amount)) = (one(Role::Reference), one(Role::Amount)) else {
        // Both are required: a missing or ambiguous one was an error above.
        return Err(Failure::usage(format!(
            "{name}: no reference or amount column"
        )));
    };
    let doubts = assessment
        .doubts
        .iter()
        .map(|(role, used, others)| Doubt {
            role: *role,
            used: *used,
            others: others.clone(),
            differs: None,
        })
        .collect();
    Ok((
        Columns {
            reference,
            amount,
            currency: one(Role::Currency),
            merchant_ref: one(Role::MerchantRef),
            order_id: one(Role::OrderId),
            payment_method: one(Role::PaymentMethod),
            status: one(Role::Status),
        },
        doubts,
    ))
}

/// What the header row lacks: each required column not found, the names looked for, and
/// a hint for a column that is there but is not the one (a net amount, an RRN).
fn missing_columns(header: &[String], missing: &[Role]) -> String {
    let normal: Vec<String> = header.iter().map(|h| normalized(h)).collect();
    let whats: Vec<String> = missing
        .iter()
        .map(|r| format!("no {} column", r.what()))
        .collect();
    let mut hints = Vec::new();
    for (role, not, why) in NOT_THE_COLUMN {
        let not = normalized(not);
        for (i, _) in normal.iter().enumerate().filter(|(_, n)| **n == not) {
            if missing.contains(&role) {
                hints.push(format!("{} is {why}", terminal::quoted(&header[i])));
            }
        }
    }
    let known = missing
        .iter()
        .map(|r| {
            let names = r.names();
            format!(
                "{} names such as {} (reconcile --help lists them)",
                r.what(),
                names
                    .iter()
                    .take(4)
                    .map(|n| format!("'{n}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    let hints = match hints.is_empty() {
        true => String::new(),
        false => format!(" ({})", hints.join("; ")),
    };
    format!("{} (looked for {known}){hints}", and_list(&whats))
}

/// Two or more columns whose names could each be one role's, and the one used: not a
/// conflict while they hold the same value on every row (Shopify's `Payment Reference` and
/// `Payment References`), a warning at the end once they do not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Doubt {
    role: Role,
    /// The column read.
    used: usize,
    /// The other columns a known name matched.
    others: Vec<usize>,
    /// The first line on which one of them holds another value than the used column.
    differs: Option<u64>,
}

impl Doubt {
    /// Every column that could be `role`'s, the used one first, when the header left that
    /// role in doubt; none otherwise.
    pub(super) fn columns_of(doubts: &[Doubt], role: Role) -> Vec<usize> {
        doubts
            .iter()
            .filter(|d| d.role == role)
            .flat_map(|d| std::iter::once(d.used).chain(d.others.iter().copied()))
            .collect()
    }

    /// Notes whether the row on `line` holds the same value, spaces around it aside, in
    /// the used column and every other one (`cell` reads a cell, empty past the row's end).
    pub(super) fn check<'a>(&mut self, line: u64, cell: impl Fn(usize) -> &'a [u8]) {
        if self.differs.is_some() {
            return;
        }
        let used = cell(self.used).trim_ascii();
        if self.others.iter().any(|&i| cell(i).trim_ascii() != used) {
            self.differs = Some(line);
        }
    }

    /// The warning that the columns could all be the role's, which is used, and where they
    /// first differ; `None` while they have agreed on every row.
    pub(super) fn warning(&self, header: &[String], name: &str) -> Option<String> {
        let line = self.differs?;
        let column = |i: usize| format!("{} ({})", i + 1, terminal::quoted(&header[i]));
        Some(format!(
            "{name}: columns {} and {} could both be the {} column, and they differ (line \
             {line} first); column {} is used (choose with {} NAME)",
            self.used + 1,
            self.others
                .iter()
                .map(|i| column(*i))
                .collect::<Vec<_>>()
                .join(", "),
            self.role.what(),
            column(self.used),
            self.role.flag().unwrap_or("a flag"),
        ))
    }
}

/// `a`, `a and b`, `a, b and c`.
pub(super) fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
