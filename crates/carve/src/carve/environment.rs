//! The environment a carved call read, set up before the call through the runtime's
//! `Environment` (the test class installs it, as generated suites do): the virtual clock set to
//! the call's first reading, the random values and seeds it drew queued, the files and
//! directories it asked about put in the virtual file system as they were, its console input
//! given; after the call, the files it wrote are checked.
//!
//! A recorded call that read the clock at 1,764,258,000,123 ms, drew one `Math.random()`, read
//! `grammar.txt` and wrote `out.txt` becomes:
//!
//! ```text
//! Environment.setTime(1764258000123L);
//! Environment.nextRandoms(0.7265);
//! Environment.writeFile("grammar.txt", "a = b;\n");
//! ... the call and its checks ...
//! assertEquals("A = B;\n", Environment.readFile("out.txt"));
//! ```

use std::collections::HashSet;

use ferrosuite_testcase::statement::string_literal;

use super::literal::double_literal;
use crate::model::{Content, Event, FileState};

/// The runtime class the set-up lines name (imported by test classes that control the
/// environment).
pub const ENVIRONMENT: &str = "org.ferrosuite.rt.Environment";

/// Characters per string literal: `javac` refuses a constant whose UTF-8 form passes 65,535
/// bytes, and folds `"a" + "b"`, so longer text is joined at run time.
const CHUNK: usize = 8_000;

/// The set-up lines for the environment events of a call, in the order the runtime needs
/// them; an error says why the environment cannot be rebuilt.
pub(super) fn setup(events: &[Event]) -> Result<Vec<String>, String> {
    let mut lines = Vec::new();
    if let Some(millis) = events.iter().find_map(|e| match e {
        Event::Clock { millis } => Some(*millis),
        _ => None,
    }) {
        lines.push(format!("Environment.setTime({millis}L);"));
    }
    let doubles: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            Event::RandomDouble { bits } => Some(double_literal(*bits)),
            _ => None,
        })
        .collect();
    if !doubles.is_empty() {
        lines.push(format!("Environment.nextRandoms({});", doubles.join(", ")));
    }
    let seeds: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            Event::RandomSeed { seed } => Some(format!("{seed}L")),
            _ => None,
        })
        .collect();
    if !seeds.is_empty() {
        lines.push(format!("Environment.nextSeeds({});", seeds.join(", ")));
    }
    files(events, &mut lines)?;
    let mut console = String::new();
    for e in events {
        if let Event::Console { input } = e {
            match input {
                Content::Text(t) => console.push_str(t),
                Content::Base64(_) => {
                    return Err("console input that is not UTF-8 text".into());
                }
            }
        }
    }
    if !console.is_empty() {
        lines.push(format!("Environment.consoleInput({});", text(&console)));
    }
    Ok(lines)
}

/// The checks after the call: each file it changed has the content it had when the recorded
/// call ended (`null` when it deleted it). Directories and files past the file limit are not
/// checked.
pub(super) fn checks(events: &[Event]) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for e in events {
        let Event::FileAfter { path, state } = e else {
            continue;
        };
        if !seen.insert(path.as_str()) {
            continue;
        }
        let p = string_literal(path);
        match state {
            FileState::Missing { .. } => {
                out.push(format!("assertNull(Environment.readFile({p}));"));
            }
            FileState::File {
                content: Content::Text(t),
            } => out.push(format!(
                "assertEquals({}, Environment.readFile({p}));",
                text(t)
            )),
            FileState::File {
                content: Content::Base64(b),
            } => out.push(format!(
                "assertEquals({}, Environment.readFileBase64({p}));",
                text(b)
            )),
            FileState::Directory { .. } | FileState::Other => {}
        }
    }
    out
}

/// Directories first (with empty stand-ins for the entries listed), then the files' contents,
/// which replace those stand-ins. Each path counts once, as the call first saw it.
fn files(events: &[Event], lines: &mut Vec<String>) -> Result<(), String> {
    let mut seen = HashSet::new();
    let mut contents = Vec::new();
    // Paths given content below need no empty stand-in; a directory is made once.
    let with_content: HashSet<&str> = events
        .iter()
        .filter_map(|e| match e {
            Event::File {
                path,
                state: FileState::File { .. },
            } => Some(path.as_str()),
            _ => None,
        })
        .collect();
    let mut made = HashSet::new();
    let mut make = |dir: &str, lines: &mut Vec<String>| {
        if made.insert(dir.to_string()) {
            lines.push(format!(
                "Environment.makeDirectory({});",
                string_literal(dir)
            ));
        }
    };
    for e in events {
        let Event::File { path, state } = e else {
            continue;
        };
        if !seen.insert(path.as_str()) {
            continue;
        }
        match state {
            FileState::Missing { parent_exists } => {
                if let Some(parent) = parent(path).filter(|_| *parent_exists) {
                    make(parent, lines);
                }
            }
            FileState::Directory { entries } => {
                make(path, lines);
                let sep = if path.ends_with('/') { "" } else { "/" };
                for (name, dir) in entries {
                    let child = format!("{path}{sep}{name}");
                    if *dir {
                        make(&child, lines);
                    } else if !with_content.contains(child.as_str()) {
                        lines.push(format!(
                            "Environment.writeFile({}, \"\");",
                            string_literal(&child)
                        ));
                    }
                }
            }
            FileState::File { content } => contents.push((path, content)),
            FileState::Other => {
                return Err(format!(
                    "a file a test cannot rebuild ({path}: unreadable, not a regular file, or past the recording's --max-file-bytes)"
                ));
            }
        }
    }
    for (path, content) in contents {
        lines.push(match content {
            Content::Text(t) => {
                format!(
                    "Environment.writeFile({}, {});",
                    string_literal(path),
                    text(t)
                )
            }
            Content::Base64(b) => format!(
                "Environment.writeFileBase64({}, {});",
                string_literal(path),
                text(b)
            ),
        });
    }
    Ok(())
}

/// The path's parent as the program would name it (`a/b` → `a`), `None` for a name alone.
fn parent(path: &str) -> Option<&str> {
    let trimmed = path.trim_end_matches('/');
    let (p, _) = trimmed.rsplit_once('/')?;
    Some(if p.is_empty() { "/" } else { p })
}

/// A string expression for `s`: one literal, or literals of [`CHUNK`] characters joined.
fn text(s: &str) -> String {
    if s.chars().count() <= CHUNK {
        return string_literal(s);
    }
    let chars: Vec<char> = s.chars().collect();
    let parts: Vec<String> = chars
        .chunks(CHUNK)
        .map(|c| string_literal(&c.iter().collect::<String>()))
        .collect();
    format!("String.join(\"\", {})", parts.join(", "))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn directories_come_before_contents_and_each_path_counts_once() {
        let events = vec![
            Event::File {
                path: "in/a.txt".into(),
                state: FileState::File {
                    content: Content::Text("A".into()),
                },
            },
            Event::File {
                path: "in".into(),
                state: FileState::Directory {
                    entries: vec![("a.txt".into(), false), ("sub".into(), true)],
                },
            },
            Event::File {
                path: "in/a.txt".into(),
                state: FileState::Missing {
                    parent_exists: true,
                },
            },
            Event::File {
                path: "out/b.txt".into(),
                state: FileState::Missing {
                    parent_exists: true,
                },
            },
            Event::Clock { millis: 7 },
            Event::Clock { millis: 9 },
            Event::RandomSeed { seed: -3 },
        ];
        let lines = setup(&events).unwrap();
        assert_eq!(
            lines,
            [
                "Environment.setTime(7L);",
                "Environment.nextSeeds(-3L);",
                "Environment.makeDirectory(\"in\");",
                "Environment.makeDirectory(\"in/sub\");",
                "Environment.makeDirectory(\"out\");",
                "Environment.writeFile(\"in/a.txt\", \"A\");",
            ]
        );
    }

    #[test]
    fn files_the_call_changed_are_checked_once_each() {
        let written = |t: &str| Event::FileAfter {
            path: "out/b.txt".into(),
            state: FileState::File {
                content: Content::Text(t.into()),
            },
        };
        let events = [
            written("done"),
            written("again"),
            Event::FileAfter {
                path: "gone".into(),
                state: FileState::Missing {
                    parent_exists: true,
                },
            },
            Event::FileAfter {
                path: "out".into(),
                state: FileState::Directory {
                    entries: Vec::new(),
                },
            },
        ];
        assert_eq!(
            checks(&events),
            [
                "assertEquals(\"done\", Environment.readFile(\"out/b.txt\"));",
                "assertNull(Environment.readFile(\"gone\"));",
            ]
        );
        assert!(setup(&events).unwrap().is_empty());
    }

    #[test]
    fn long_text_is_joined_from_literals_and_odd_files_are_refused() {
        let long = "x".repeat(CHUNK * 2 + 1);
        let e = text(&long);
        assert!(e.starts_with("String.join(\"\", \""), "{e}");
        assert_eq!(e.matches("\", \"").count(), 3, "three literals");
        let odd = [Event::File {
            path: "/dev/tty".into(),
            state: FileState::Other,
        }];
        assert!(setup(&odd).unwrap_err().contains("/dev/tty"));
        let binary = [Event::Console {
            input: Content::Base64("AA==".into()),
        }];
        assert!(setup(&binary).is_err());
    }
}
