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
    let (saved, source) = match table {
        Some(t) => (&t.value, Some(&t.source)),
        None => (&empty, None),
    };
    let origin = |key: &str| match source {
        Some(Source::Profile { path, profile, .. }) => {
            format!("reconcile.{key} in {} [profiles.{profile}]", path.display())
        }
        Some(other) => format!("reconcile.{key} in {other}"),
        None => format!("reconcile.{key}"),
    };
    // A profile's value is never quoted back: config errors never quote values (a secret
    // can sit under any key).
    let invalid = |key: &str, why: &str| {
        Failure::config(Cause::SettingInvalid, format!("{} {why}", origin(key)))
    };
    let column = |flag: &Option<String>, flag_name: &str, saved: &Option<String>, key: &str| match (
        flag, saved,
    ) {
        (Some(name), _) => Ok(Some(Given {
            name: name.clone(),
            origin: flag_name.to_owned(),
        })),
        (None, Some(name)) if name.trim().is_empty() => Err(invalid(
            key,
            "is empty; name a column of the file's header row, or leave the key out",
        )),
        (None, Some(name)) => Ok(Some(Given {
            name: name.clone(),
            origin: origin(key),
        })),
        (None, None) => Ok(None),
    };
    let delimiter = match (&args.delimiter, &saved.delimiter) {
        (Some(text), _) => Some(parse_delimiter(text).map_err(Failure::usage)?),
        (None, Some(text)) => {
            Some(parse_delimiter(text).map_err(|_| invalid("delimiter", "is not one of , ; tab"))?)
        }
        (None, None) => None,
    };
    let header_row = match (args.header_row, saved.header_row) {
        (Some(n), _) => Some(n),
        (None, Some(0)) => return Err(invalid("header_row", "must be 1 or more")),
        (None, n) => n,
    };
    let unit = match (args.amount_unit, saved.amount_unit.as_deref()) {
        (Some(unit), _) => unit,
        (None, Some(text)) => <AmountUnit as clap::ValueEnum>::from_str(text.trim(), true)
            .map_err(|_| invalid("amount_unit", "is not one of: naira, kobo"))?,
        (None, None) => AmountUnit::Naira,
    };
    let currency = match (&args.currency, &saved.currency) {
        (Some(code), _) => code.clone(),
        (None, Some(code)) => iso_code(code)
            .ok_or_else(|| {
                invalid(
                    "currency",
                    "is not an ISO 4217 currency code (such as NGN, or 566)",
                )
            })?
            .to_owned(),
        (None, None) => DEFAULT_CURRENCY.to_owned(),
    };
    // --currency-column and --no-currency-column exclude each other on the command line;
    // either one there overrides both keys of the profile.
    let (currency_column, no_currency_column) = match (
        &args.currency_column,
        args.no_currency_column,
        &saved.currency_column,
        saved.no_currency_column.unwrap_or(false),
    ) {
        (Some(_), ..) => (
            column(
                &args.currency_column,
                "--currency-column",
                &None,
                "currency_column",
            )?,
            false,
        ),
        (None, true, ..) => (None, true),
        (None, false, Some(_), true) => {
            return Err(invalid(
                "no_currency_column",
                "is true while reconcile.currency_column names a column; keep one",
            ));
        }
        (None, false, saved_column, no) => {
            (column(&None, "", saved_column, "currency_column")?, no)
        }
    };
    Ok(CsvOptions {
        delimiter,
        header_row,
        reference_column: column(
            &args.reference_column,
            "--reference-column",
            &saved.reference_column,
            "reference_column",
        )?,
        amount_column: column(
            &args.amount_column,
            "--amount-column",
            &saved.amount_column,
            "amount_column",
        )?,
        currency_column,
        merchant_ref_column: column(
            &args.merchant_ref_column,
            "--merchant-ref-column",
            &saved.merchant_ref_column,
            "merchant_ref_column",
        )?,
        no_currency_column,
        unit,
        currency,
        only: args
            .only
            .iter()
            .map(|text| Only::parse(text).map_err(|why| Failure::usage(format!("--only: {why}"))))
            .collect::<Result<_, _>>()?,
    })
}
