//! Issue 24 item 8: the examples in README.md and docs/ are run, so a renamed or removed flag
//! cannot live on in a page. Every `payverify ...` command in a fenced block (and every
//! inline one that passes a flag) is cut out of its shell line and parsed as payverify
//! parses its own arguments; the ones that need nothing but the in-process sandbox are run.

use crate::common::{self, pages};

/// A shell word, or one of the operators that end a simple command.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(String),
    /// `|`, `||`, `&&`, `;`, `&`, a redirection, `(` or `)`: the command before it has ended
    /// (a redirection's target is skipped with it).
    End,
}

/// What a shell variable or command substitution stands for in an example: a reference for
/// `$ref`-like names, a figure for `$total`, a word otherwise.
fn stand_in(name: &str) -> &'static str {
    match name {
        n if n.contains("ref") => "SANDBOX-OK-1",
        n if n.contains("total") || n.contains("amount") => "40000",
        _ => "stand-in",
    }
}

/// Splits one shell line (continuations joined) into words and command ends, as sh would:
/// quotes removed, `$var`, `${var}` and `$(...)` replaced by stand-ins, `#` starting a
/// comment at a word's start.
fn split(line: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            match c {
                c if c == q => quote = None,
                '$' if q == '"' => word.get_or_insert_default().push_str(&variable(&mut chars)),
                '\\' if q == '"' => word.get_or_insert_default().extend(chars.next()),
                c => word.get_or_insert_default().push(c),
            }
            continue;
        }
        match c {
            '\'' | '"' => {
                quote = Some(c);
                word.get_or_insert_default();
            }
            '\\' => word.get_or_insert_default().extend(chars.next()),
            '$' => word.get_or_insert_default().push_str(&variable(&mut chars)),
            '#' if word.is_none() => break,
            ' ' | '\t' => tokens.extend(word.take().map(Token::Word)),
            '|' | '&' | ';' | '(' | ')' => {
                tokens.extend(word.take().map(Token::Word));
                while chars.peek().is_some_and(|n| matches!(n, '|' | '&')) {
                    chars.next();
                }
                tokens.push(Token::End);
            }
            '<' | '>' => {
                // `2>` and `>>`: the digit was the start of this redirection, not a word.
                if word
                    .as_deref()
                    .is_some_and(|w| w.chars().all(|d| d.is_ascii_digit()))
                {
                    word = None;
                }
                tokens.extend(word.take().map(Token::Word));
                while chars.peek().is_some_and(|n| matches!(n, '<' | '>' | '&')) {
                    chars.next();
                }
                tokens.push(Token::End);
            }
            c => word.get_or_insert_default().push(c),
        }
    }
    tokens.extend(word.map(Token::Word));
    tokens
}

/// The stand-in for what follows a `$`: a name, `{name}` or `(command)`.
fn variable(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> String {
    let mut name = String::new();
    match chars.peek() {
        Some('(') | Some('{') => {
            let close = if chars.next() == Some('(') { ')' } else { '}' };
            for c in chars.by_ref() {
                if c == close {
                    break;
                }
                name.push(c);
            }
        }
        _ => {
            while let Some(c) = chars.next_if(|c| c.is_ascii_alphanumeric() || *c == '_') {
                name.push(c);
            }
        }
    }
    stand_in(&name).to_owned()
}

/// The payverify commands in one shell line: each `payverify` word in a command's first
/// place (after a prompt, `if`, `!`, an environment assignment or a cron schedule), with
/// its arguments up to the end of that command.
fn commands(line: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let mut at_start = true;
    let mut current: Option<Vec<String>> = None;
    for token in split(line) {
        match token {
            Token::End => {
                found.extend(current.take());
                at_start = true;
            }
            Token::Word(w) if current.is_some() => current.get_or_insert_default().push(w),
            Token::Word(w) if at_start && w == "payverify" => current = Some(vec![w]),
            Token::Word(w) => {
                let prefix = ["$", "if", "then", "!", "do", "*"].contains(&w.as_str())
                    || w.chars().all(|c| c.is_ascii_digit())
                    || w.split_once('=').is_some_and(|(k, _)| {
                        !k.is_empty() && k.chars().all(|c| c.is_ascii_uppercase() || c == '_')
                    });
                at_start = at_start && prefix;
            }
        }
    }
    found.extend(current);
    found
}

/// Each page's shell lines: those of fenced blocks (other than JSON, TOML and plain output)
/// with continuations joined, and each inline `payverify ...` span that passes a flag and
/// is not a schematic (`...`, `[...]` or a PLACEHOLDER word); a span may wrap a line.
fn example_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut fence: Option<String> = None;
    let mut pending = String::new();
    let mut prose = String::new();
    for line in text.lines().chain([""]) {
        if fence.is_none() && !line.trim_start().starts_with("```") && !line.is_empty() {
            prose.push_str(line);
            prose.push(' ');
            continue;
        }
        lines.extend(inline_commands(&std::mem::take(&mut prose)));
        if let Some(rest) = line.trim_start().strip_prefix("```") {
            fence = match fence {
                Some(_) => None,
                None => Some(rest.trim().to_owned()),
            };
            continue;
        }
        match fence.as_deref() {
            None | Some("json" | "toml" | "text" | "roff") => {}
            Some(_) => {
                pending.push_str(line);
                if pending.ends_with('\\') {
                    pending.pop();
                } else {
                    lines.push(std::mem::take(&mut pending));
                }
            }
        }
    }
    lines
}

/// The inline `payverify ...` spans of a paragraph that pass a flag and are no schematic.
fn inline_commands(paragraph: &str) -> Vec<String> {
    let placeholder = |w: &str| {
        let head = w.split('/').next().unwrap_or_default();
        !head.is_empty() && head.chars().all(|c| c.is_ascii_uppercase())
    };
    paragraph
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|span| span.starts_with("payverify ") && span.contains(" -"))
        .filter(|span| !span.contains("...") && !span.contains('['))
        .filter(|span| !span.split(' ').any(placeholder))
        .map(str::to_owned)
        .collect()
}

/// The exit status a shell line's comment documents for its command: `# 4`, `# 0: paid`,
/// `# exit 4: not this order's amount`, `# exits 3` (how the pages write it beside an
/// example); `None` for any other comment or none.
fn documented_exit(line: &str) -> Option<i32> {
    let mut quote: Option<char> = None;
    let mut previous = ' ';
    let mut comment = None;
    for (at, c) in line.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '#') if previous.is_whitespace() => {
                comment = Some(&line[at + 1..]);
                break;
            }
            _ => {}
        }
        previous = c;
    }
    let comment = comment?.trim();
    let (number, worded) = match comment.split_once(' ') {
        Some(("exit" | "exits", rest)) => (rest, true),
        _ => (comment, false),
    };
    let digits = number.len()
        - number
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .len();
    let (code, rest) = number.split_at(digits);
    // A bare figure is an exit status only alone or before a colon (`# 503, no Retry-After`
    // is an HTTP status); after "exit" any end of the word will do.
    let ends =
        rest.is_empty() || rest.starts_with(':') || (worded && rest.starts_with([',', ' ', ')']));
    code.parse().ok().filter(|_| ends)
}

#[test]
fn documented_exit_statuses_are_read_from_the_comment() {
    let cases = [
        ("payverify gate --sandbox -- SANDBOX-OK-1   # 0", Some(0)),
        ("payverify gate --sandbox -- X   # 4", Some(4)),
        (
            "payverify webhook check --expect-amount 400 p.json   # exit 4: not this order's",
            Some(4),
        ),
        ("payverify verify --sandbox R   # exits 3", Some(3)),
        (
            "payverify sandbox --retry-after none   # 503, no Retry-After",
            None,
        ),
        (
            "payverify sandbox --port 8089 &   # first stdout line: http://127.0.0.1:8089",
            None,
        ),
        ("payverify verify --sandbox 'R#1' # in-process", None),
        ("payverify verify --sandbox R#1", None),
    ];
    for (line, code) in cases {
        assert_eq!(documented_exit(line), code, "{line}");
    }
}

#[test]
fn shell_lines_split_as_sh_would() {
    let words = |line: &str| commands(line);
    assert_eq!(
        words(r#"if payverify gate --amount "$total" -- "$ref"; then"#),
        [[
            "payverify",
            "gate",
            "--amount",
            "40000",
            "--",
            "SANDBOX-OK-1"
        ]]
    );
    assert_eq!(
        words("15 2 * * * payverify verify --from x -o csv > out.csv 2> log || mail -s y z"),
        [["payverify", "verify", "--from", "x", "-o", "csv"]]
    );
    assert_eq!(
        words("X_Y=s payverify webhook check p.json   # genuine"),
        [["payverify", "webhook", "check", "p.json"]]
    );
    assert_eq!(
        words("payverify verify -o json 1 | X=1 payverify webhook check -"),
        [
            vec!["payverify", "verify", "-o", "json", "1"],
            vec!["payverify", "webhook", "check", "-"]
        ]
    );
    assert!(words("sudo install -m 755 payverify /usr/local/bin/").is_empty());
    assert!(words("echo 'payverify verify x'").is_empty());
}

#[test]
fn every_documented_command_line_parses() {
    let mut checked = 0;
    let mut wrong = Vec::new();
    for page in pages::pages() {
        for line in example_lines(&page.text) {
            for argv in commands(&line) {
                checked += 1;
                if let Err(e) = payverify::parses(&argv) {
                    let first = e.lines().next().unwrap_or_default().to_owned();
                    wrong.push(format!("{}: {line}\n    {first}", page.path));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "examples that do not parse:\n{}",
        wrong.join("\n")
    );
    // README and docs/ hold some 90 such commands: a parser that found none would pass.
    assert!(checked >= 60, "only {checked} documented commands found");
}

/// The examples that need nothing but the in-process sandbox run as written: none is a
/// usage error (exit 2), each says on stderr why not when it is not 0, and one whose line
/// documents its exit status (`# 4`) exits with that status.
#[test]
fn documented_sandbox_commands_run() {
    let (mut ran, mut documented) = (0, 0);
    for page in pages::pages() {
        for line in example_lines(&page.text) {
            let found = commands(&line);
            // A line of two commands (a pipe) documents the last one's status: none ran here.
            let expected = documented_exit(&line).filter(|_| found.len() == 1);
            for argv in found {
                let runnable = argv.iter().any(|a| a == "--sandbox")
                    && ["verify", "gate"].contains(&argv[1].as_str())
                    && !argv.iter().any(|a| a == "--from" || a == "-");
                if !runnable {
                    continue;
                }
                ran += 1;
                let out = common::payverify().args(&argv[1..]).output().unwrap();
                let code = out.status.code();
                assert!(
                    code.is_some_and(|c| c != 2),
                    "{}: {line}: exit {code:?}\n{}",
                    page.path,
                    common::stderr_of(&out)
                );
                if let Some(expected) = expected {
                    documented += 1;
                    assert_eq!(
                        code,
                        Some(expected),
                        "{}: {line}: documented exit {expected}\n{}",
                        page.path,
                        common::stderr_of(&out)
                    );
                }
            }
        }
    }
    assert!(ran >= 5, "only {ran} sandbox examples ran");
    // docs/gate.md documents three: a reader that found none would pass.
    assert!(
        documented >= 3,
        "only {documented} documented exit statuses checked"
    );
}
