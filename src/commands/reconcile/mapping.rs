//! How `reconcile` reads the file: each setting from its flag, else from the selected
//! profile's `[profiles.NAME.reconcile]` table (a shop's export layout, saved once), else
//! found in the file itself (the header row, the delimiter, the columns by their names).

use crate::batch::csv_input::{AmountUnit, CsvOptions, Given, Only};
use crate::cli::{ReconcileArgs, parse_delimiter};
use crate::domain::currency::iso_code;
use crate::exit::{Cause, Failure};
use crate::settings::file::ReconcileTable;
use crate::settings::{Source, Sourced};

/// The currency every row expects when nothing says otherwise.
const DEFAULT_CURRENCY: &str = "NGN";

/// The options for reading the file: flag > profile table > detection.
pub(super) fn csv_options(
    args: &ReconcileArgs,
    table: Option<&Sourced<ReconcileTable>>,
) -> Result<CsvOptions, Failure> {
    let empty = ReconcileTable::default();
    let saved = Saved {
        table: table.map_or(&empty, |t| &t.value),
        source: table.map(|t| &t.source),
    };
    let t = saved.table;
    let delimiter = match (&args.delimiter, &t.delimiter) {
        (Some(text), _) => Some(parse_delimiter(text).map_err(Failure::usage)?),
        (None, Some(text)) => Some(
            parse_delimiter(text)
                .map_err(|_| saved.invalid("delimiter", "is not one of , ; tab"))?,
        ),
        (None, None) => None,
    };
    let header_row = match (args.header_row, t.header_row) {
        (Some(n), _) => Some(n),
        (None, Some(0)) => return Err(saved.invalid("header_row", "must be 1 or more")),
        (None, n) => n,
    };
    let unit = match (args.amount_unit, t.amount_unit.as_deref()) {
        (Some(unit), _) => unit,
        (None, Some(text)) => <AmountUnit as clap::ValueEnum>::from_str(text.trim(), true)
            .map_err(|_| saved.invalid("amount_unit", "is not one of: naira, kobo"))?,
        (None, None) => AmountUnit::Naira,
    };
    let currency = match (&args.currency, &t.currency) {
        (Some(code), _) => code.clone(),
        (None, Some(code)) => iso_code(code)
            .ok_or_else(|| {
                let why = "is not an ISO 4217 currency code (such as NGN, or 566)";
                saved.invalid("currency", why)
            })?
            .to_owned(),
        (None, None) => DEFAULT_CURRENCY.to_owned(),
    };
    let (currency_column, no_currency_column) = saved.currency_column(args)?;
    let reference_pattern = match &args.reference_pattern {
        Some(text) => Some(reference_pattern(text, args)?),
        None => None,
    };
    let only = (args.only.iter())
        .map(|text| Only::parse(text).map_err(|why| Failure::usage(format!("--only: {why}"))));
    Ok(CsvOptions {
        delimiter,
        header_row,
        reference_column: saved.column(
            "--reference-column",
            &args.reference_column,
            &t.reference_column,
        )?,
        amount_column: saved.column("--amount-column", &args.amount_column, &t.amount_column)?,
        currency_column,
        merchant_ref_column: saved.column(
            "--merchant-ref-column",
            &args.merchant_ref_column,
            &t.merchant_ref_column,
        )?,
        no_currency_column,
        unit,
        currency,
        only: only.collect::<Result<_, _>>()?,
        reference_pattern,
    })
}

/// `--reference-pattern`'s REGEX compiled, or one line saying why it is none (exit 2); not
/// with `--resume` or `--state`, whose records are keyed by the reference cell as written.
fn reference_pattern(text: &str, args: &ReconcileArgs) -> Result<regex::Regex, Failure> {
    if args.resume.is_some() || args.state.is_some() {
        return Err(Failure::usage(
            "--reference-pattern cannot be used with --resume or --state (their rows are \
             keyed by the reference column's text as written); run the file afresh",
        ));
    }
    regex::RegexBuilder::new(text)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| {
            // The syntax error is a small drawing over several lines: its own words only.
            let why = e.to_string();
            let why = why
                .lines()
                .rev()
                .find_map(|l| l.trim().strip_prefix("error: "))
                .unwrap_or_else(|| why.lines().next().unwrap_or("invalid"))
                .to_owned();
            Failure::usage(format!(
                "--reference-pattern {}: not a regular expression ({})",
                crate::terminal::quoted(text),
                crate::terminal::scrub(&why)
            ))
        })
}

/// The profile's `[profiles.NAME.reconcile]` table and where it came from.
struct Saved<'a> {
    table: &'a ReconcileTable,
    source: Option<&'a Source>,
}

impl Saved<'_> {
    /// Where `key` of the table was set, as messages name it.
    fn origin(&self, key: &str) -> String {
        match self.source {
            Some(Source::Profile { path, profile, .. }) => {
                format!("reconcile.{key} in {} [profiles.{profile}]", path.display())
            }
            Some(other) => format!("reconcile.{key} in {other}"),
            None => format!("reconcile.{key}"),
        }
    }

    /// Exit 6 for a bad `key`. A profile's value is never quoted back: config errors never
    /// quote values (a secret can sit under any key).
    fn invalid(&self, key: &str, why: &str) -> Failure {
        Failure::config(Cause::SettingInvalid, format!("{} {why}", self.origin(key)))
    }

    /// A column named by its flag `flag_name`, else by the table's key of the same name
    /// (`reference_column` for `--reference-column`; an empty name is refused).
    fn column(
        &self,
        flag_name: &str,
        flag: &Option<String>,
        saved: &Option<String>,
    ) -> Result<Option<Given>, Failure> {
        let key = &flag_name.trim_start_matches('-').replace('-', "_");
        match (flag, saved) {
            (Some(name), _) => Ok(Some(Given {
                name: name.clone(),
                origin: flag_name.to_owned(),
            })),
            (None, Some(name)) if name.trim().is_empty() => Err(self.invalid(
                key,
                "is empty; name a column of the file's header row, or leave the key out",
            )),
            (None, Some(name)) => Ok(Some(Given {
                name: name.clone(),
                origin: self.origin(key),
            })),
            (None, None) => Ok(None),
        }
    }

    /// The currency column, and whether none is read. --currency-column and
    /// --no-currency-column exclude each other on the command line; either one there
    /// overrides both keys of the profile.
    fn currency_column(&self, args: &ReconcileArgs) -> Result<(Option<Given>, bool), Failure> {
        let t = self.table;
        match (
            &args.currency_column,
            args.no_currency_column,
            &t.currency_column,
            t.no_currency_column.unwrap_or(false),
        ) {
            (Some(_), ..) => Ok((
                self.column("--currency-column", &args.currency_column, &None)?,
                false,
            )),
            (None, true, ..) => Ok((None, true)),
            (None, false, Some(_), true) => Err(self.invalid(
                "no_currency_column",
                "is true while reconcile.currency_column names a column; keep one",
            )),
            (None, false, saved, no) => Ok((self.column("--currency-column", &None, saved)?, no)),
        }
    }
}
