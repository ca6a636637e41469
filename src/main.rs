//! The `speccoder` binary: parse the command line, run, map the outcome to an exit code.

#![forbid(unsafe_code)]

mod cli;
mod commands;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory as _, FromArgMatches as _};
use speccoder_attest::model::shown::{one_line, one_line_path};

fn main() -> ExitCode {
    speccoder_attest::git::remove_locks_on_interrupt();
    let parsed = cli::Cli::command().try_get_matches().and_then(|matches| {
        attest_options_before(&matches).map_or(Ok(()), Err)?;
        cli::Cli::from_arg_matches(&matches)
    });
    let cli = match parsed {
        Ok(cli) => cli,
        // Help and the version are no failures (unless stdout does not take them, as for any
        // report); every other parse error is a usage error.
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            return ExitCode::from(commands::print_help(&e));
        }
        Err(e) => {
            let e = values_quoted(branch_only_tip(glued_value_tip(e)));
            return ExitCode::from(commands::usage_failed(&e.render().to_string()));
        }
    };
    let dir = (!cli.dir.is_empty()).then(directory_given);
    if let Some(dir) = &dir
        && let Err(e) = std::env::set_current_dir(dir)
    {
        let message = format!("speccoder: cannot change to {}: {e}", one_line_path(dir));
        return ExitCode::from(commands::usage_failed(&message));
    }
    ExitCode::from(commands::run(cli.command, dir.as_deref()))
}

/// The directory every `-C DIR` of the command line names together, as git takes them: each
/// relative to the one before (`-C a -C b` is `a/b`), an absolute one starting anew. Read from
/// the words themselves, in order: clap keeps a global option's values of one level only, and
/// `-C a attest verify -C b` gives them at two.
fn directory_given() -> PathBuf {
    let mut words = std::env::args_os().skip(1).take_while(|a| a != "--");
    let mut dir = PathBuf::new();
    while let Some(word) = words.next() {
        let value = match word.to_str() {
            Some("-C") => words.next(),
            Some(glued) if glued.starts_with("-C") => {
                let rest = &glued[2..];
                Some(rest.strip_prefix('=').unwrap_or(rest).into())
            }
            _ => None,
        };
        if let Some(value) = value {
            dir.push(value);
        }
    }
    dir
}

/// clap's tip for an unknown `-x` right after an option that takes a value (`--reason -x`) is
/// "use '-- -x'", which does not work there: `--reason -- -x` ends the options instead. Such a
/// value is given glued to its option (`--reason=-x`), and the tip says so.
fn glued_value_tip(mut e: clap::Error) -> clap::Error {
    if e.kind() != ErrorKind::UnknownArgument {
        return e;
    }
    let Some(ContextValue::String(invalid)) = e.get(ContextKind::InvalidArg) else { return e };
    let invalid = invalid.clone();
    // Read as the OS gives them: an argument that is not UTF-8 is no option name, and must not
    // stop this (`std::env::args` panics on one).
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .take_while(|a| a != "--")
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    // clap names a word of short options (`-dash`) by its first letter (`-d`): the word is the value.
    let is_word = |word: &String| {
        *word == invalid || (invalid.len() == 2 && !word.starts_with("--") && word.starts_with(&invalid))
    };
    let pair = args.windows(2).find(|pair| is_word(&pair[1]));
    let option = pair.and_then(|pair| Some((pair[0].strip_prefix("--")?, pair[1].clone())));
    let mut command = cli::Cli::command();
    command.build();
    let Some((name, value)) = option.filter(|(name, _)| takes_value(&command, name)) else { return e };
    let tip = format!("to give '{value}' as the value of --{name}, write '--{name}={value}'");
    e.insert(ContextKind::Suggested, ContextValue::StyledStrs(vec![tip.into()]));
    e
}

/// clap's error for `--base` or `--all` beside a `REV | A..B` names the two, not why: the tip says
/// that they go with `--branch`.
fn branch_only_tip(mut e: clap::Error) -> clap::Error {
    if e.kind() != ErrorKind::ArgumentConflict {
        return e;
    }
    let named: Vec<&String> = [ContextKind::InvalidArg, ContextKind::PriorArg]
        .into_iter()
        .flat_map(|kind| match e.get(kind) {
            Some(ContextValue::String(arg)) => vec![arg],
            Some(ContextValue::Strings(args)) => args.iter().collect(),
            _ => Vec::new(),
        })
        .collect();
    // `--base` beside `--all` is no such error: both go with `--branch`.
    let (branch_only, other): (Vec<&String>, Vec<&String>) =
        named.into_iter().partition(|arg| cli::BRANCH_ONLY.contains(&arg.as_str()));
    if !branch_only.is_empty() && !other.is_empty() {
        e.insert(ContextKind::Suggested, ContextValue::StyledStrs(vec![cli::BRANCH_ONLY_TIP.into()]));
    }
    e
}

/// Whether some command of `command`'s tree (built) has a `--name` option that takes a value.
fn takes_value(command: &clap::Command, name: &str) -> bool {
    command.get_arguments().any(|arg| arg.get_long() == Some(name) && arg.get_action().takes_values())
        || command.get_subcommands().any(|sub| takes_value(sub, name))
}

/// `e` with each argument it quotes from the command line (a value, an unknown word) as
/// [`one_line`] quotes it: a value's newline cannot start a line of clap's message of its own, nor
/// its U+202E reorder it.
fn values_quoted(mut e: clap::Error) -> clap::Error {
    let quoted: Vec<(ContextKind, ContextValue)> = e
        .context()
        .filter_map(|(kind, value)| match value {
            ContextValue::String(text) => Some((kind, ContextValue::String(one_line(text).into_owned()))),
            ContextValue::Strings(texts) => {
                Some((kind, ContextValue::Strings(texts.iter().map(|t| one_line(t).into_owned()).collect())))
            }
            _ => None,
        })
        .collect();
    for (kind, value) in quoted {
        e.insert(kind, value);
    }
    e
}

/// `speccoder attest <its own options> <subcommand>`: attest's options (other than the global
/// `-C`) before one of its subcommands would be dropped unread, so they are a usage error, as
/// clap's `args_conflicts_with_subcommands` would make them (which `cli.rs` cannot set: it would
/// take the subcommand's name after `-C DIR` as the task).
fn attest_options_before(matches: &ArgMatches) -> Option<clap::Error> {
    let Some(("attest", attest)) = matches.subcommand() else { return None };
    let (sub, _) = attest.subcommand()?;
    let mut command = cli::Cli::command();
    let command = command.find_subcommand_mut("attest")?;
    command.build();
    let given = command.get_arguments().find(|arg| {
        !arg.is_global_set() && attest.value_source(arg.get_id().as_str()) == Some(ValueSource::CommandLine)
    })?;
    let named = match (given.get_long(), given.get_short()) {
        (Some(long), _) => format!("--{long}"),
        (None, Some(short)) => format!("-{short}"),
        (None, None) => {
            format!("<{}>", given.get_value_names().and_then(|n| n.first()).map_or("", |n| n.as_str()))
        }
    };
    Some(command.error(
        ErrorKind::ArgumentConflict,
        format!("`{named}` is an argument of `speccoder attest <UNIT/TASK>`, not of `speccoder attest {sub}`: give `{sub}` its arguments after its name"),
    ))
}
