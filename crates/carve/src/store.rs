//! The trace store: one `SQLite` file holding recorded runs, indexed by class and method, readable
//! with the `sqlite3` shell (values are JSON text, see [`crate::model`]).
//!
//! Tables (every one keyed by `run` first, so that a store can hold several recorded runs):
//! `runs` (command, times, exit code, counts), `methods` (id, class, name, descriptor, counts),
//! `targets` (the methods collaborators were called through), `fields` (static fields read),
//! `calls` (one row per recorded call: receiver, arguments, outcome, state after), `events`
//! (a call's calls on collaborators, static reads and environment readings — `clock`,
//! `random_double`, `random_seed`, `file`, `file_after`, `console` — in order), `skipped` (classes and methods
//! left unrecorded, with the reason). The view `call_view` joins calls with their methods.
//!
//! ```no_run
//! # fn main() -> ferrosuite_carve::Result<()> {
//! let store = ferrosuite_carve::store::Store::open(std::path::Path::new("run.db"))?;
//! for m in store.methods(store.last_run()?.unwrap_or(0))? {
//!     println!("{}.{}{} {} calls", m.class, m.name, m.descriptor, m.recorded);
//! }
//! # Ok(()) }
//! ```

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::{Error, Result};
use crate::model::{CallKind, CallRecord, EndRecord, Event, Outcome};
use ferrosuite_bytecode::instrument::record::{CallTarget, RecordMap, RecordedMethod, StaticField};

/// The format name in the `meta` table.
pub const FORMAT: &str = "ferrosuite-trace";
/// The schema version in the `meta` table.
pub const VERSION: &str = "1";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs(
    id INTEGER PRIMARY KEY, command TEXT NOT NULL, started_unix_ms INTEGER NOT NULL,
    wall_ms INTEGER, exit_code INTEGER, calls INTEGER NOT NULL DEFAULT 0,
    dropped INTEGER NOT NULL DEFAULT 0, unfinished INTEGER NOT NULL DEFAULT 0,
    complete INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS methods(
    run INTEGER NOT NULL, id INTEGER NOT NULL, class TEXT NOT NULL, name TEXT NOT NULL,
    descriptor TEXT NOT NULL, is_static INTEGER NOT NULL, seen INTEGER NOT NULL DEFAULT 0,
    recorded INTEGER NOT NULL DEFAULT 0, repeats INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY(run, id));
CREATE INDEX IF NOT EXISTS methods_by_class ON methods(class, name);
CREATE TABLE IF NOT EXISTS targets(
    run INTEGER NOT NULL, id INTEGER NOT NULL, owner TEXT NOT NULL, name TEXT NOT NULL,
    descriptor TEXT NOT NULL, interface INTEGER NOT NULL, PRIMARY KEY(run, id));
CREATE TABLE IF NOT EXISTS fields(
    run INTEGER NOT NULL, id INTEGER NOT NULL, owner TEXT NOT NULL, name TEXT NOT NULL,
    descriptor TEXT NOT NULL, PRIMARY KEY(run, id));
CREATE TABLE IF NOT EXISTS calls(
    run INTEGER NOT NULL, id INTEGER NOT NULL, method INTEGER NOT NULL, kind TEXT NOT NULL,
    parent INTEGER NOT NULL, thread INTEGER NOT NULL, receiver_id INTEGER NOT NULL,
    receiver TEXT NOT NULL, args TEXT NOT NULL, outcome TEXT NOT NULL, threw INTEGER NOT NULL,
    after TEXT NOT NULL, truncated INTEGER NOT NULL, PRIMARY KEY(run, id));
CREATE INDEX IF NOT EXISTS calls_by_method ON calls(run, method);
CREATE TABLE IF NOT EXISTS events(
    run INTEGER NOT NULL, call INTEGER NOT NULL, ord INTEGER NOT NULL, kind TEXT NOT NULL,
    ref INTEGER NOT NULL, receiver INTEGER, detail TEXT NOT NULL, PRIMARY KEY(run, call, ord));
CREATE TABLE IF NOT EXISTS skipped(
    run INTEGER NOT NULL, class TEXT NOT NULL, member TEXT NOT NULL, reason TEXT NOT NULL);
CREATE VIEW IF NOT EXISTS call_view AS
    SELECT c.run, c.id, m.class, m.name, m.descriptor, c.args, c.outcome, c.truncated
    FROM calls c JOIN methods m ON m.run = c.run AND m.id = c.method;
";

/// A method of a run with its counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodRow {
    /// Method id.
    pub id: u32,
    /// Internal name of its class.
    pub class: String,
    /// Name.
    pub name: String,
    /// Descriptor.
    pub descriptor: String,
    /// Static.
    pub is_static: bool,
    /// Calls considered.
    pub seen: u32,
    /// Calls recorded.
    pub recorded: u32,
    /// Repeats skipped.
    pub repeats: u32,
}

/// An open trace store.
pub struct Store {
    conn: Connection,
    path: PathBuf,
    pending: usize,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.path)
            .field("pending", &self.pending)
            .finish_non_exhaustive()
    }
}

impl Store {
    fn err(&self, e: impl std::fmt::Display) -> Error {
        Error::Store {
            path: self.path.clone(),
            detail: e.to_string(),
        }
    }

    /// Opens a store, creating it when the file does not exist. An existing file that is not a
    /// ferrosuite trace store (or is of another version) is refused and left as it is.
    ///
    /// # Errors
    /// [`Error::Store`] naming the file.
    pub fn open(path: &Path) -> Result<Self> {
        let existed = path.exists();
        let e = |d: String| Error::Store {
            path: path.to_path_buf(),
            detail: d,
        };
        if existed {
            let mut head = [0u8; 16];
            let n = std::fs::File::open(path)
                .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
                .map_err(|x| e(x.to_string()))?;
            if n > 0 && head[..n.min(16)] != b"SQLite format 3\0"[..n.min(16)] {
                return Err(e("exists and is not a SQLite database; not touched".into()));
            }
        }
        let conn = Connection::open(path).map_err(|x| e(x.to_string()))?;
        let store = Store {
            conn,
            path: path.to_path_buf(),
            pending: 0,
        };
        if existed && std::fs::metadata(path).is_ok_and(|m| m.len() > 0) {
            let format: Option<String> = store
                .conn
                .query_row("SELECT value FROM meta WHERE key = 'format'", [], |r| {
                    r.get(0)
                })
                .optional()
                .map_err(|_| {
                    e("is a SQLite database but not a ferrosuite trace store; not touched".into())
                })?;
            let version: Option<String> = store
                .conn
                .query_row("SELECT value FROM meta WHERE key = 'version'", [], |r| {
                    r.get(0)
                })
                .optional()
                .map_err(|x| e(x.to_string()))?;
            if format.as_deref() != Some(FORMAT) {
                return Err(e(
                    "is a SQLite database but not a ferrosuite trace store; not touched".into(),
                ));
            }
            if version.as_deref() != Some(VERSION) {
                return Err(e(format!(
                    "trace store version {} (this ferrosuite reads {VERSION})",
                    version.unwrap_or_default()
                )));
            }
        }
        store.conn.execute_batch(SCHEMA).map_err(|x| store.err(x))?;
        store
            .conn
            .execute_batch(&format!(
                "INSERT OR IGNORE INTO meta VALUES ('format', '{FORMAT}');
                 INSERT OR IGNORE INTO meta VALUES ('version', '{VERSION}');
                 PRAGMA synchronous = OFF;"
            ))
            .map_err(|x| store.err(x))?;
        Ok(store)
    }

    /// The store's file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Starts a run; returns its id.
    ///
    /// # Errors
    /// [`Error::Store`].
    pub fn begin_run(&self, command: &str, started_unix_ms: i64) -> Result<i64> {
        self.conn
            .execute(
                "INSERT INTO runs(command, started_unix_ms) VALUES (?1, ?2)",
                params![command, started_unix_ms],
            )
            .map_err(|x| self.err(x))?;
        Ok(self.conn.last_insert_rowid())
    }

    /// The latest run's id.
    ///
    /// # Errors
    /// [`Error::Store`].
    pub fn last_run(&self) -> Result<Option<i64>> {
        self.conn
            .query_row("SELECT max(id) FROM runs", [], |r| r.get(0))
            .map_err(|x| self.err(x))
    }

    fn in_batch(&mut self) -> Result<()> {
        if self.pending == 0 {
            self.conn.execute_batch("BEGIN").map_err(|x| self.err(x))?;
        }
        self.pending += 1;
        Ok(())
    }

    /// Commits the records added since the last commit.
    ///
    /// # Errors
    /// [`Error::Store`].
    pub fn commit(&mut self) -> Result<()> {
        if self.pending > 0 {
            self.pending = 0;
            self.conn.execute_batch("COMMIT").map_err(|x| self.err(x))?;
        }
        Ok(())
    }

    /// Records added since the last commit.
    #[must_use]
    pub fn pending(&self) -> usize {
        self.pending
    }

    /// Adds a recorded call (in the open batch; [`Store::commit`] writes it).
    ///
    /// # Errors
    /// [`Error::Store`].
    pub fn add_call(&mut self, run: i64, c: &CallRecord) -> Result<()> {
        self.in_batch()?;
        let threw = matches!(c.outcome, Outcome::Threw { .. });
        let kind = match c.kind {
            CallKind::Method => "method",
            CallKind::Constructor => "constructor",
        };
        let id = c.id as i64;
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO calls VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    run,
                    id,
                    c.method,
                    kind,
                    c.parent as i64,
                    c.thread as i64,
                    c.receiver_id,
                    json(&c.receiver),
                    json(&c.args),
                    json(&c.outcome),
                    threw,
                    json(&c.after),
                    i64::from(c.truncated) | (i64::from(c.events_cut) << 1)
                ])
            })
            .map_err(|x| self.err(x))?;
        for (ord, ev) in c.events.iter().enumerate() {
            let (kind, r, receiver) = match ev {
                Event::Call {
                    target, receiver, ..
                } => ("call", *target, Some(*receiver)),
                Event::StaticRead { field, .. } => ("static_read", *field, None),
                Event::Clock { .. } => ("clock", 0, None),
                Event::RandomDouble { .. } => ("random_double", 0, None),
                Event::RandomSeed { .. } => ("random_seed", 0, None),
                Event::File { .. } => ("file", 0, None),
                Event::FileAfter { .. } => ("file_after", 0, None),
                Event::Console { .. } => ("console", 0, None),
            };
            self.conn
                .prepare_cached("INSERT OR REPLACE INTO events VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
                .and_then(|mut s| {
                    s.execute(params![run, id, ord as i64, kind, r, receiver, json(ev)])
                })
                .map_err(|x| self.err(x))?;
        }
        Ok(())
    }

    /// Writes what the ids of a run mean, the per-method counts and the run's totals.
    ///
    /// # Errors
    /// [`Error::Store`].
    pub fn finish_run(
        &mut self,
        run: i64,
        map: &RecordMap,
        end: Option<&EndRecord>,
        totals: &RunTotals,
    ) -> Result<()> {
        self.commit()?;
        self.in_batch()?;
        for (id, m) in map.methods.iter().enumerate() {
            self.conn
                .prepare_cached("INSERT OR REPLACE INTO methods(run, id, class, name, descriptor, is_static) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
                .and_then(|mut s| s.execute(params![run, id as i64, m.class, m.name, m.descriptor, m.is_static]))
                .map_err(|x| self.err(x))?;
        }
        for (id, t) in map.targets.iter().enumerate() {
            self.conn
                .prepare_cached("INSERT OR REPLACE INTO targets VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
                .and_then(|mut s| {
                    s.execute(params![
                        run,
                        id as i64,
                        t.owner,
                        t.name,
                        t.descriptor,
                        t.interface
                    ])
                })
                .map_err(|x| self.err(x))?;
        }
        for (id, f) in map.fields.iter().enumerate() {
            self.conn
                .prepare_cached("INSERT OR REPLACE INTO fields VALUES (?1, ?2, ?3, ?4, ?5)")
                .and_then(|mut s| s.execute(params![run, id as i64, f.owner, f.name, f.descriptor]))
                .map_err(|x| self.err(x))?;
        }
        for (class, member, reason) in &map.skipped {
            self.conn
                .prepare_cached("INSERT INTO skipped VALUES (?1, ?2, ?3, ?4)")
                .and_then(|mut s| s.execute(params![run, class, member, reason]))
                .map_err(|x| self.err(x))?;
        }
        if let Some(end) = end {
            for m in &end.methods {
                self.conn
                    .prepare_cached("UPDATE methods SET seen = ?3, recorded = ?4, repeats = ?5 WHERE run = ?1 AND id = ?2")
                    .and_then(|mut s| s.execute(params![run, m.method, m.seen, m.recorded, m.repeats]))
                    .map_err(|x| self.err(x))?;
            }
        } else {
            self.conn
                .execute(
                    "UPDATE methods SET recorded = (SELECT count(*) FROM calls c WHERE c.run = methods.run AND c.method = methods.id) WHERE run = ?1",
                    params![run],
                )
                .map_err(|x| self.err(x))?;
        }
        self.conn
            .execute(
                "UPDATE runs SET wall_ms = ?2, exit_code = ?3, calls = ?4, dropped = ?5, unfinished = ?6, complete = ?7 WHERE id = ?1",
                params![
                    run,
                    totals.wall_ms as i64,
                    totals.exit_code,
                    totals.calls as i64,
                    end.map_or(0, |e| e.dropped as i64),
                    end.map_or(0, |e| e.unfinished as i64),
                    end.is_some()
                ],
            )
            .map_err(|x| self.err(x))?;
        self.commit()
    }

    /// The methods of a run with their counts, by class, name and descriptor.
    ///
    /// # Errors
    /// [`Error::Store`].
    pub fn methods(&self, run: i64) -> Result<Vec<MethodRow>> {
        let mut s = self
            .conn
            .prepare("SELECT id, class, name, descriptor, is_static, seen, recorded, repeats FROM methods WHERE run = ?1 ORDER BY class, name, descriptor")
            .map_err(|x| self.err(x))?;
        let rows = s
            .query_map(params![run], |r| {
                Ok(MethodRow {
                    id: r.get(0)?,
                    class: r.get(1)?,
                    name: r.get(2)?,
                    descriptor: r.get(3)?,
                    is_static: r.get(4)?,
                    seen: r.get(5)?,
                    recorded: r.get(6)?,
                    repeats: r.get(7)?,
                })
            })
            .map_err(|x| self.err(x))?;
        rows.collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|x| self.err(x))
    }

    /// What the ids of a run mean: its methods, call targets and static fields, each indexed
    /// by id.
    ///
    /// # Errors
    /// [`Error::Store`].
    pub fn meaning(
        &self,
        run: i64,
    ) -> Result<(Vec<RecordedMethod>, Vec<CallTarget>, Vec<StaticField>)> {
        let mut methods = Vec::new();
        for m in self.methods(run)? {
            let i = m.id as usize;
            if methods.len() <= i {
                methods.resize(
                    i + 1,
                    RecordedMethod {
                        class: String::new(),
                        name: String::new(),
                        descriptor: String::new(),
                        is_static: false,
                    },
                );
            }
            methods[i] = RecordedMethod {
                class: m.class,
                name: m.name,
                descriptor: m.descriptor,
                is_static: m.is_static,
            };
        }
        let mut s = self
            .conn
            .prepare(
                "SELECT owner, name, descriptor, interface FROM targets WHERE run = ?1 ORDER BY id",
            )
            .map_err(|x| self.err(x))?;
        let targets = s
            .query_map(params![run], |r| {
                Ok(CallTarget {
                    owner: r.get(0)?,
                    name: r.get(1)?,
                    descriptor: r.get(2)?,
                    interface: r.get(3)?,
                })
            })
            .map_err(|x| self.err(x))?
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|x| self.err(x))?;
        let mut s = self
            .conn
            .prepare("SELECT owner, name, descriptor FROM fields WHERE run = ?1 ORDER BY id")
            .map_err(|x| self.err(x))?;
        let fields = s
            .query_map(params![run], |r| {
                Ok(StaticField {
                    owner: r.get(0)?,
                    name: r.get(1)?,
                    descriptor: r.get(2)?,
                })
            })
            .map_err(|x| self.err(x))?
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|x| self.err(x))?;
        Ok((methods, targets, fields))
    }

    fn parse_json<T: serde::de::DeserializeOwned>(
        &self,
        what: &str,
        text: &str,
        id: i64,
    ) -> Result<T> {
        serde_json::from_str(text).map_err(|e| self.err(format!("call {id}: {what}: {e}")))
    }

    /// The recorded calls of one method of a run, in the order they started.
    ///
    /// # Errors
    /// [`Error::Store`] (also for a row that does not parse).
    pub fn calls(&self, run: i64, method: u32) -> Result<Vec<CallRecord>> {
        let mut s = self
            .conn
            .prepare("SELECT id, method, kind, parent, thread, receiver_id, receiver, args, outcome, after, truncated FROM calls WHERE run = ?1 AND method = ?2 ORDER BY id")
            .map_err(|x| self.err(x))?;
        let rows: Vec<RawCall> = s
            .query_map(params![run, method], |r| {
                Ok(RawCall {
                    id: r.get(0)?,
                    method: r.get(1)?,
                    kind: r.get(2)?,
                    parent: r.get(3)?,
                    thread: r.get(4)?,
                    receiver_id: r.get(5)?,
                    receiver: r.get(6)?,
                    args: r.get(7)?,
                    outcome: r.get(8)?,
                    after: r.get(9)?,
                    truncated: r.get(10)?,
                })
            })
            .map_err(|x| self.err(x))?
            .collect::<std::result::Result<_, _>>()
            .map_err(|x| self.err(x))?;
        let mut out = Vec::with_capacity(rows.len());
        for RawCall {
            id,
            method,
            kind,
            parent,
            thread,
            receiver_id,
            receiver,
            args,
            outcome,
            after,
            truncated,
        } in rows
        {
            let mut ev = self
                .conn
                .prepare_cached(
                    "SELECT detail FROM events WHERE run = ?1 AND call = ?2 ORDER BY ord",
                )
                .map_err(|x| self.err(x))?;
            let events: Vec<String> = ev
                .query_map(params![run, id], |r| r.get(0))
                .map_err(|x| self.err(x))?
                .collect::<std::result::Result<_, _>>()
                .map_err(|x| self.err(x))?;
            out.push(CallRecord {
                kind: if kind == "constructor" {
                    CallKind::Constructor
                } else {
                    CallKind::Method
                },
                method,
                id: id as u64,
                parent: parent as u64,
                thread: thread as u64,
                receiver: self.parse_json("receiver", &receiver, id)?,
                receiver_id,
                args: self.parse_json("args", &args, id)?,
                events: events
                    .iter()
                    .map(|e| self.parse_json("event", e, id))
                    .collect::<Result<_>>()?,
                outcome: self.parse_json("outcome", &outcome, id)?,
                after: self.parse_json("after", &after, id)?,
                truncated: truncated != 0,
                events_cut: truncated & 2 != 0,
            });
        }
        Ok(out)
    }
}

/// A `calls` row before its JSON columns are parsed.
struct RawCall {
    id: i64,
    method: u32,
    kind: String,
    parent: i64,
    thread: i64,
    receiver_id: i64,
    receiver: String,
    args: String,
    outcome: String,
    after: String,
    /// Bit 0: some value or event cut; bit 1: events cut.
    truncated: i64,
}

/// A run's totals as the recording process measured them.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunTotals {
    /// Wall time of the program, in milliseconds.
    pub wall_ms: u64,
    /// The program's exit code.
    pub exit_code: i32,
    /// Calls stored.
    pub calls: u64,
}

/// JSON text of a model value (the store's column format).
fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|e| format!("{{\"error\":{:?}}}", e.to_string()))
}
