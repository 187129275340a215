//! Watching the environment of a recorded run (`ferrosuite record`): in included classes, the
//! call sites that read the clock, draw random numbers, touch files or read the console go
//! through stand-ins of the runtime's `Observed` class, which make the same call and tell the
//! recorder what came back, so that a carved test can give the call the same environment.
//!
//! Unlike the controlled environment ([`environment`](super::environment)), nothing is
//! replaced: the program still reads the machine's clock and files. The rewrites are the same
//! kinds, with other targets:
//!
//! ```text
//! invokestatic System.currentTimeMillis()J   →  invokestatic Observed.currentTimeMillis()J
//! invokevirtual File.exists()Z               →  invokestatic Observed.exists(Ljava/io/File;)Z
//! new FileReader; dup; aload 1; invokespecial FileReader.<init>(Ljava/lang/String;)V
//!                                            →  nop; nop; aload 1; invokestatic Observed.newFileReader(…)
//! new Random; dup; invokespecial Random.<init>()V
//!                                            →  new Random; dup; invokestatic Observed.randomSeed()J;
//!                                               invokespecial Random.<init>(J)V
//! getstatic System.in                        →  getstatic Observed.in
//! ```
//!
//! What is watched: `System.currentTimeMillis`, `new Date()`, `Calendar.getInstance()`, the
//! `now()` of `Instant` and the local, zoned and offset date-times; `Math.random()` and the
//! seed of `new Random()`; `File.exists`/`isFile`/`isDirectory`/`canRead`/`length`/`list`/
//! `listFiles`, the constructors of the file streams, readers, writers, `PrintWriter`,
//! `PrintStream`, `Scanner` and `RandomAccessFile` on a path, and `Files`' reads, writes,
//! listings and questions on a `Path`; `System.in`. Not watched: `nanoTime` (a test's virtual
//! clock gives its own elapsed times), `ThreadLocalRandom`, `UUID.randomUUID`, channels.
//!
//! ```
//! use ferrosuite_bytecode::instrument::observe::{OBSERVED, redirects};
//! let r = redirects();
//! assert!(r.iter().any(|r| r.from.name == "currentTimeMillis" && r.to.owner == OBSERVED));
//! assert!(r.iter().any(|r| r.from.name == "in" && r.to.owner == OBSERVED));
//! ```

use crate::classfile::ClassFile;
use crate::error::Result;
use crate::instrument::environment::{SeededConstructor, factories, seeded_constructors};
use crate::instrument::files::{self, Factory};
use crate::instrument::redirect::{MemberSpec, Redirect, redirect};

/// Internal name of the runtime class with the stand-ins.
pub const OBSERVED: &str = "org/ferrosuite/rt/rec/Observed";

const P: &str = "Ljava/nio/file/Path;";

/// `java.io.File`'s methods watched: name and descriptor.
const FILE_METHODS: [(&str, &str); 7] = [
    ("exists", "()Z"),
    ("isFile", "()Z"),
    ("isDirectory", "()Z"),
    ("canRead", "()Z"),
    ("length", "()J"),
    ("list", "()[Ljava/lang/String;"),
    ("listFiles", "()[Ljava/io/File;"),
];

/// `java.nio.file.Files`' static methods watched.
fn files_statics() -> Vec<(&'static str, String)> {
    let link = "[Ljava/nio/file/LinkOption;";
    let open = "[Ljava/nio/file/OpenOption;";
    let cs = "Ljava/nio/charset/Charset;";
    vec![
        ("readAllBytes", format!("({P})[B")),
        ("readAllLines", format!("({P})Ljava/util/List;")),
        ("readAllLines", format!("({P}{cs})Ljava/util/List;")),
        (
            "newBufferedReader",
            format!("({P})Ljava/io/BufferedReader;"),
        ),
        (
            "newBufferedReader",
            format!("({P}{cs})Ljava/io/BufferedReader;"),
        ),
        (
            "newInputStream",
            format!("({P}{open})Ljava/io/InputStream;"),
        ),
        ("lines", format!("({P})Ljava/util/stream/Stream;")),
        ("lines", format!("({P}{cs})Ljava/util/stream/Stream;")),
        ("list", format!("({P})Ljava/util/stream/Stream;")),
        (
            "newDirectoryStream",
            format!("({P})Ljava/nio/file/DirectoryStream;"),
        ),
        ("exists", format!("({P}{link})Z")),
        ("isRegularFile", format!("({P}{link})Z")),
        ("isDirectory", format!("({P}{link})Z")),
        ("size", format!("({P})J")),
        (
            "newOutputStream",
            format!("({P}{open})Ljava/io/OutputStream;"),
        ),
        (
            "newBufferedWriter",
            format!("({P}{cs}{open})Ljava/io/BufferedWriter;"),
        ),
        ("write", format!("({P}[B{open}){P}")),
        ("write", format!("({P}Ljava/lang/Iterable;{cs}{open}){P}")),
    ]
}

/// The `now()`s of `java.time` watched, with their stand-ins' names.
const NOWS: [(&str, &str); 6] = [
    ("java/time/Instant", "instantNow"),
    ("java/time/LocalDateTime", "localDateTimeNow"),
    ("java/time/LocalDate", "localDateNow"),
    ("java/time/LocalTime", "localTimeNow"),
    ("java/time/ZonedDateTime", "zonedDateTimeNow"),
    ("java/time/OffsetDateTime", "offsetDateTimeNow"),
];

/// Every redirect of the watched environment.
#[must_use]
pub fn redirects() -> Vec<Redirect> {
    let stat = |owner: &str, name: &str, descriptor: &str, to: &str| {
        Redirect::to_static(MemberSpec::new(owner, name, descriptor), OBSERVED, to)
    };
    let mut out = vec![
        stat(
            "java/lang/System",
            "currentTimeMillis",
            "()J",
            "currentTimeMillis",
        ),
        stat("java/lang/Math", "random", "()D", "random"),
        stat(
            "java/util/Calendar",
            "getInstance",
            "()Ljava/util/Calendar;",
            "calendar",
        ),
        stat("java/lang/System", "in", "Ljava/io/InputStream;", "in"),
    ];
    for (class, to) in NOWS {
        out.push(stat(class, "now", &format!("()L{class};"), to));
    }
    for (name, d) in FILE_METHODS {
        out.push(Redirect::instance_to_static(
            MemberSpec::new("java/io/File", name, d),
            OBSERVED,
            name,
        ));
    }
    for (name, d) in files_statics() {
        out.push(stat("java/nio/file/Files", name, &d, name));
    }
    out
}

/// The constructors watched: those of [`files::FACTORIES`] that Java 8 has (the stand-ins are
/// compiled for it), with the same names.
#[must_use]
pub fn factory_table() -> Vec<Factory> {
    files::FACTORIES
        .iter()
        .filter(|f| !f.descriptor.contains("Ljava/nio/charset/Charset;"))
        .map(|f| Factory {
            owner: OBSERVED,
            ..*f
        })
        .collect()
}

/// `new Date()` and `new Random()`, whose values the stand-ins report.
pub const SEEDED: [SeededConstructor; 2] = [
    SeededConstructor {
        class: "java/util/Date",
        descriptor: "()V",
        value: "J",
        owner: OBSERVED,
        name: "dateMillis",
        factory: "",
    },
    SeededConstructor {
        class: "java/util/Random",
        descriptor: "()V",
        value: "J",
        owner: OBSERVED,
        name: "randomSeed",
        factory: "",
    },
];

/// Sends every watched call site of the class through its stand-in; returns the number of
/// instructions changed. On an error the class may be half rewritten: work on a copy.
///
/// # Errors
/// When a method's code cannot be decoded or rewritten.
pub fn observe(class: &mut ClassFile, name: &str) -> Result<usize> {
    // A subclass of `File` calling `super.exists()` would reach the stand-in, which calls
    // `exists()` virtually, back in the subclass: its `File` calls are left alone.
    let mut table = redirects();
    if class.super_name()?.is_some_and(|s| s == "java/io/File") {
        table.retain(|r| r.from.owner != "java/io/File");
    }
    Ok(redirect(class, &table)?
        + factories(class, name, &factory_table())?
        + seeded_constructors(class, name, &SEEDED)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirects_fit_and_watch_each_member_once() {
        let all = redirects();
        for (i, r) in all.iter().enumerate() {
            assert!(r.check().is_ok(), "{r:?}");
            assert!(all[i + 1..].iter().all(|b| b.from != r.from), "{r:?} twice");
        }
        let table = factory_table();
        assert!(table.len() >= 20, "{}", table.len());
        assert!(table.iter().all(|f| f.owner == OBSERVED));
    }
}
