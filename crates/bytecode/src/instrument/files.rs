//! The virtual file system and console: the rewrites that make code under test read and write
//! files in memory (runtime classes `VirtualFs`, `VirtualFiles`, `VirtualPaths`) and read its
//! console input from the test (`VirtualConsole`) instead of the machine's.
//!
//! | API | becomes |
//! |---|---|
//! | `java.io.File`'s methods that ask the file system (`exists`, `length`, `list`, `mkdirs`, `delete`, `getCanonicalPath`, …) | `VirtualFiles`' of the same name taking the `File` first |
//! | `File.createTempFile`, `File.listRoots` | `VirtualFiles`' of the same descriptor |
//! | `new FileInputStream(f)`, `FileOutputStream`, `FileReader`, `FileWriter`, `PrintWriter(file)`, `PrintStream(file)`, `Scanner(file)` | a [factory](Factory): `VirtualFiles.newFileInputStream(f)` … |
//! | `java.nio.file.Files`' static methods (read, write, create, delete, list, walk, `walkFileTree`, `find`, directory streams, byte channels, basic attributes, copy, move, …) | `VirtualPaths`' of the same descriptor (paths of other file systems go on to `Files`) |
//! | `Path.toAbsolutePath`, `toRealPath`, `toUri` | `VirtualPaths`' taking the path first |
//! | `FileChannel.open` | `VirtualChannel.open` (a `FileChannel` over the virtual file; the virtual streams' `getChannel()` return one too) |
//! | `new RandomAccessFile(f, mode)` | a [factory](Factory): `VirtualRandomAccess.newRandomAccessFile(f, mode)` |
//! | `RandomAccessFile`'s final `writeBytes`, `writeChars`, `getChannel` | `VirtualRandomAccess`' taking the file first |
//! | `System.in`, `System.out`, `System.err` | `VirtualConsole.in`, `out`, `err` (input the test gives; output kept per test, not printed) |
//! | `System.setIn`, `setOut`, `setErr` | `VirtualConsole`'s (for the rest of the test) |
//!
//! A `File` stays a path holder; relative paths start at the virtual `/work`. Not made
//! virtual: memory mapping (`FileChannel.map` of a virtual file throws an `IOException`),
//! `AsynchronousFileChannel`, attributes other than the basic ones, and code in a subclass of a
//! file stream calling its `super(…)` constructor (the sandbox still refuses what they would
//! write).
//!
//! ```
//! use ferrosuite_bytecode::instrument::files::{FACTORIES, FILES_CLASS, redirects};
//! assert!(redirects().iter().any(|r| r.from.name == "exists" && r.to.owner == FILES_CLASS));
//! let f = FACTORIES.iter().find(|f| f.class == "java/io/FileInputStream").unwrap();
//! assert_eq!(f.stand_in().descriptor, "(Ljava/lang/String;)Ljava/io/FileInputStream;");
//! ```

use crate::instrument::redirect::{MemberSpec, Redirect};

/// Internal name of the runtime class with the `java.io` stand-ins and factories.
pub const FILES_CLASS: &str = "org/ferrosuite/rt/VirtualFiles";
/// Internal name of the runtime class with the `java.nio.file` stand-ins.
pub const PATHS_CLASS: &str = "org/ferrosuite/rt/VirtualPaths";
/// Internal name of the runtime class holding the virtual tree.
pub const FS_CLASS: &str = "org/ferrosuite/rt/VirtualFs";
/// Internal name of the runtime class with the console input.
pub const CONSOLE_CLASS: &str = "org/ferrosuite/rt/VirtualConsole";
/// Internal name of the runtime class with the virtual `FileChannel`.
pub const CHANNEL_CLASS: &str = "org/ferrosuite/rt/VirtualChannel";
/// Internal name of the runtime class with the virtual `RandomAccessFile`.
pub const RANDOM_ACCESS_CLASS: &str = "org/ferrosuite/rt/VirtualRandomAccess";

/// A constructor replaced by a static factory of the same parameters returning the object:
/// `new C; dup; args…; invokespecial C.<init>(P)V` becomes `args…; invokestatic
/// owner.name(P)LC;` (the `new` and `dup` become `nop`s, so nothing moves).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Factory {
    /// Internal name of the class constructed.
    pub class: &'static str,
    /// The constructor's descriptor.
    pub descriptor: &'static str,
    /// Internal name of the runtime class with the factory.
    pub owner: &'static str,
    /// The factory's name.
    pub name: &'static str,
}

impl Factory {
    /// The factory method: the constructor's parameters, returning the class.
    #[must_use]
    pub fn stand_in(&self) -> MemberSpec {
        let params = &self.descriptor[..self.descriptor.len() - 1];
        MemberSpec::new(self.owner, self.name, &format!("{params}L{};", self.class))
    }
}

const fn factory(class: &'static str, descriptor: &'static str, name: &'static str) -> Factory {
    Factory {
        class,
        descriptor,
        owner: FILES_CLASS,
        name,
    }
}

const S: &str = "Ljava/lang/String;";

/// The constructors that open files, and their factories in [`FILES_CLASS`] (random access
/// files' in [`RANDOM_ACCESS_CLASS`]).
pub const FACTORIES: [Factory; 38] = [
    Factory {
        class: "java/io/RandomAccessFile",
        descriptor: "(Ljava/lang/String;Ljava/lang/String;)V",
        owner: RANDOM_ACCESS_CLASS,
        name: "newRandomAccessFile",
    },
    Factory {
        class: "java/io/RandomAccessFile",
        descriptor: "(Ljava/io/File;Ljava/lang/String;)V",
        owner: RANDOM_ACCESS_CLASS,
        name: "newRandomAccessFile",
    },
    factory(
        "java/io/FileInputStream",
        "(Ljava/lang/String;)V",
        "newFileInputStream",
    ),
    factory(
        "java/io/FileInputStream",
        "(Ljava/io/File;)V",
        "newFileInputStream",
    ),
    factory(
        "java/io/FileOutputStream",
        "(Ljava/lang/String;)V",
        "newFileOutputStream",
    ),
    factory(
        "java/io/FileOutputStream",
        "(Ljava/lang/String;Z)V",
        "newFileOutputStream",
    ),
    factory(
        "java/io/FileOutputStream",
        "(Ljava/io/File;)V",
        "newFileOutputStream",
    ),
    factory(
        "java/io/FileOutputStream",
        "(Ljava/io/File;Z)V",
        "newFileOutputStream",
    ),
    factory(
        "java/io/FileReader",
        "(Ljava/lang/String;)V",
        "newFileReader",
    ),
    factory("java/io/FileReader", "(Ljava/io/File;)V", "newFileReader"),
    factory(
        "java/io/FileReader",
        "(Ljava/lang/String;Ljava/nio/charset/Charset;)V",
        "newFileReader",
    ),
    factory(
        "java/io/FileReader",
        "(Ljava/io/File;Ljava/nio/charset/Charset;)V",
        "newFileReader",
    ),
    factory(
        "java/io/FileWriter",
        "(Ljava/lang/String;)V",
        "newFileWriter",
    ),
    factory(
        "java/io/FileWriter",
        "(Ljava/lang/String;Z)V",
        "newFileWriter",
    ),
    factory("java/io/FileWriter", "(Ljava/io/File;)V", "newFileWriter"),
    factory("java/io/FileWriter", "(Ljava/io/File;Z)V", "newFileWriter"),
    factory(
        "java/io/FileWriter",
        "(Ljava/lang/String;Ljava/nio/charset/Charset;)V",
        "newFileWriter",
    ),
    factory(
        "java/io/FileWriter",
        "(Ljava/lang/String;Ljava/nio/charset/Charset;Z)V",
        "newFileWriter",
    ),
    factory(
        "java/io/FileWriter",
        "(Ljava/io/File;Ljava/nio/charset/Charset;)V",
        "newFileWriter",
    ),
    factory(
        "java/io/FileWriter",
        "(Ljava/io/File;Ljava/nio/charset/Charset;Z)V",
        "newFileWriter",
    ),
    factory(
        "java/io/PrintWriter",
        "(Ljava/lang/String;)V",
        "newPrintWriter",
    ),
    factory("java/io/PrintWriter", "(Ljava/io/File;)V", "newPrintWriter"),
    factory(
        "java/io/PrintWriter",
        "(Ljava/lang/String;Ljava/lang/String;)V",
        "newPrintWriter",
    ),
    factory(
        "java/io/PrintWriter",
        "(Ljava/io/File;Ljava/lang/String;)V",
        "newPrintWriter",
    ),
    factory(
        "java/io/PrintWriter",
        "(Ljava/lang/String;Ljava/nio/charset/Charset;)V",
        "newPrintWriter",
    ),
    factory(
        "java/io/PrintWriter",
        "(Ljava/io/File;Ljava/nio/charset/Charset;)V",
        "newPrintWriter",
    ),
    factory(
        "java/io/PrintStream",
        "(Ljava/lang/String;)V",
        "newPrintStream",
    ),
    factory("java/io/PrintStream", "(Ljava/io/File;)V", "newPrintStream"),
    factory(
        "java/io/PrintStream",
        "(Ljava/lang/String;Ljava/lang/String;)V",
        "newPrintStream",
    ),
    factory(
        "java/io/PrintStream",
        "(Ljava/io/File;Ljava/lang/String;)V",
        "newPrintStream",
    ),
    factory(
        "java/io/PrintStream",
        "(Ljava/lang/String;Ljava/nio/charset/Charset;)V",
        "newPrintStream",
    ),
    factory(
        "java/io/PrintStream",
        "(Ljava/io/File;Ljava/nio/charset/Charset;)V",
        "newPrintStream",
    ),
    factory("java/util/Scanner", "(Ljava/io/File;)V", "newScanner"),
    factory(
        "java/util/Scanner",
        "(Ljava/io/File;Ljava/lang/String;)V",
        "newScanner",
    ),
    factory(
        "java/util/Scanner",
        "(Ljava/io/File;Ljava/nio/charset/Charset;)V",
        "newScanner",
    ),
    factory("java/util/Scanner", "(Ljava/nio/file/Path;)V", "newScanner"),
    factory(
        "java/util/Scanner",
        "(Ljava/nio/file/Path;Ljava/lang/String;)V",
        "newScanner",
    ),
    factory(
        "java/util/Scanner",
        "(Ljava/nio/file/Path;Ljava/nio/charset/Charset;)V",
        "newScanner",
    ),
];

/// `java.io.File`'s instance methods that ask the file system (name, descriptor).
const FILE_METHODS: [(&str, &str); 36] = [
    ("exists", "()Z"),
    ("isFile", "()Z"),
    ("isDirectory", "()Z"),
    ("isHidden", "()Z"),
    ("canRead", "()Z"),
    ("canWrite", "()Z"),
    ("canExecute", "()Z"),
    ("length", "()J"),
    ("lastModified", "()J"),
    ("setLastModified", "(J)Z"),
    ("delete", "()Z"),
    ("deleteOnExit", "()V"),
    ("createNewFile", "()Z"),
    ("mkdir", "()Z"),
    ("mkdirs", "()Z"),
    ("renameTo", "(Ljava/io/File;)Z"),
    ("list", "()[Ljava/lang/String;"),
    ("list", "(Ljava/io/FilenameFilter;)[Ljava/lang/String;"),
    ("listFiles", "()[Ljava/io/File;"),
    ("listFiles", "(Ljava/io/FilenameFilter;)[Ljava/io/File;"),
    ("listFiles", "(Ljava/io/FileFilter;)[Ljava/io/File;"),
    ("setReadable", "(Z)Z"),
    ("setReadable", "(ZZ)Z"),
    ("setWritable", "(Z)Z"),
    ("setWritable", "(ZZ)Z"),
    ("setExecutable", "(Z)Z"),
    ("setExecutable", "(ZZ)Z"),
    ("setReadOnly", "()Z"),
    ("getAbsolutePath", "()Ljava/lang/String;"),
    ("getAbsoluteFile", "()Ljava/io/File;"),
    ("getCanonicalPath", "()Ljava/lang/String;"),
    ("getCanonicalFile", "()Ljava/io/File;"),
    ("toURI", "()Ljava/net/URI;"),
    ("getTotalSpace", "()J"),
    ("getFreeSpace", "()J"),
    ("getUsableSpace", "()J"),
];

/// `java.io.File`'s static methods that ask the file system.
const FILE_STATICS: [(&str, &str); 3] = [
    (
        "createTempFile",
        "(Ljava/lang/String;Ljava/lang/String;)Ljava/io/File;",
    ),
    (
        "createTempFile",
        "(Ljava/lang/String;Ljava/lang/String;Ljava/io/File;)Ljava/io/File;",
    ),
    ("listRoots", "()[Ljava/io/File;"),
];

const P: &str = "Ljava/nio/file/Path;";

/// `java.nio.file.Files`' static methods made virtual (name, descriptor).
fn files_statics() -> Vec<(&'static str, String)> {
    let link = "[Ljava/nio/file/LinkOption;";
    let attrs = "[Ljava/nio/file/attribute/FileAttribute;";
    let open = "[Ljava/nio/file/OpenOption;";
    let copy = "[Ljava/nio/file/CopyOption;";
    let cs = "Ljava/nio/charset/Charset;";
    let visit = "[Ljava/nio/file/FileVisitOption;";
    let lines = "Ljava/lang/Iterable;";
    let text = "Ljava/lang/CharSequence;";
    let stream = "Ljava/util/stream/Stream;";
    let dirs = "Ljava/nio/file/DirectoryStream;";
    let visitor = "Ljava/nio/file/FileVisitor;";
    let channel = "Ljava/nio/channels/SeekableByteChannel;";
    vec![
        ("exists", format!("({P}{link})Z")),
        ("notExists", format!("({P}{link})Z")),
        ("isDirectory", format!("({P}{link})Z")),
        ("isRegularFile", format!("({P}{link})Z")),
        ("isReadable", format!("({P})Z")),
        ("isWritable", format!("({P})Z")),
        ("isExecutable", format!("({P})Z")),
        ("isHidden", format!("({P})Z")),
        ("isSymbolicLink", format!("({P})Z")),
        ("isSameFile", format!("({P}{P})Z")),
        ("size", format!("({P})J")),
        ("delete", format!("({P})V")),
        ("deleteIfExists", format!("({P})Z")),
        ("createFile", format!("({P}{attrs}){P}")),
        ("createDirectory", format!("({P}{attrs}){P}")),
        ("createDirectories", format!("({P}{attrs}){P}")),
        ("createTempFile", format!("({S}{S}{attrs}){P}")),
        ("createTempFile", format!("({P}{S}{S}{attrs}){P}")),
        ("createTempDirectory", format!("({S}{attrs}){P}")),
        ("createTempDirectory", format!("({P}{S}{attrs}){P}")),
        ("readAllBytes", format!("({P})[B")),
        ("readAllLines", format!("({P})Ljava/util/List;")),
        ("readAllLines", format!("({P}{cs})Ljava/util/List;")),
        ("readString", format!("({P}){S}")),
        ("readString", format!("({P}{cs}){S}")),
        ("write", format!("({P}[B{open}){P}")),
        ("write", format!("({P}{lines}{open}){P}")),
        ("write", format!("({P}{lines}{cs}{open}){P}")),
        ("writeString", format!("({P}{text}{open}){P}")),
        ("writeString", format!("({P}{text}{cs}{open}){P}")),
        (
            "newInputStream",
            format!("({P}{open})Ljava/io/InputStream;"),
        ),
        (
            "newOutputStream",
            format!("({P}{open})Ljava/io/OutputStream;"),
        ),
        (
            "newBufferedReader",
            format!("({P})Ljava/io/BufferedReader;"),
        ),
        (
            "newBufferedReader",
            format!("({P}{cs})Ljava/io/BufferedReader;"),
        ),
        (
            "newBufferedWriter",
            format!("({P}{open})Ljava/io/BufferedWriter;"),
        ),
        (
            "newBufferedWriter",
            format!("({P}{cs}{open})Ljava/io/BufferedWriter;"),
        ),
        ("lines", format!("({P}){stream}")),
        ("lines", format!("({P}{cs}){stream}")),
        ("list", format!("({P}){stream}")),
        ("walk", format!("({P}{visit}){stream}")),
        ("walk", format!("({P}I{visit}){stream}")),
        ("copy", format!("({P}{P}{copy}){P}")),
        ("copy", format!("(Ljava/io/InputStream;{P}{copy})J")),
        ("copy", format!("({P}Ljava/io/OutputStream;)J")),
        ("move", format!("({P}{P}{copy}){P}")),
        (
            "getLastModifiedTime",
            format!("({P}{link})Ljava/nio/file/attribute/FileTime;"),
        ),
        (
            "setLastModifiedTime",
            format!("({P}Ljava/nio/file/attribute/FileTime;){P}"),
        ),
        (
            "readAttributes",
            format!("({P}Ljava/lang/Class;{link})Ljava/nio/file/attribute/BasicFileAttributes;"),
        ),
        ("newDirectoryStream", format!("({P}){dirs}")),
        ("newDirectoryStream", format!("({P}{S}){dirs}")),
        (
            "newDirectoryStream",
            format!("({P}Ljava/nio/file/DirectoryStream$Filter;){dirs}"),
        ),
        ("newByteChannel", format!("({P}{open}){channel}")),
        (
            "newByteChannel",
            format!("({P}Ljava/util/Set;{attrs}){channel}"),
        ),
        ("walkFileTree", format!("({P}{visitor}){P}")),
        ("walkFileTree", format!("({P}Ljava/util/Set;I{visitor}){P}")),
        (
            "find",
            format!("({P}ILjava/util/function/BiPredicate;{visit}){stream}"),
        ),
    ]
}

/// `Path`'s methods that ask the file system (name, descriptor).
const PATH_METHODS: [(&str, &str); 3] = [
    ("toAbsolutePath", "()Ljava/nio/file/Path;"),
    (
        "toRealPath",
        "([Ljava/nio/file/LinkOption;)Ljava/nio/file/Path;",
    ),
    ("toUri", "()Ljava/net/URI;"),
];

/// Every redirect of the virtual file system and console.
#[must_use]
pub fn redirects() -> Vec<Redirect> {
    let instance = |owner: &str, to: &str, name: &str, descriptor: &str| {
        Redirect::instance_to_static(MemberSpec::new(owner, name, descriptor), to, name)
    };
    let stat = |owner: &str, to: &str, name: &str, descriptor: &str| {
        Redirect::to_static(MemberSpec::new(owner, name, descriptor), to, name)
    };
    let mut out: Vec<Redirect> = FILE_METHODS
        .iter()
        .map(|(n, d)| instance("java/io/File", FILES_CLASS, n, d))
        .collect();
    out.extend(
        FILE_STATICS
            .iter()
            .map(|(n, d)| stat("java/io/File", FILES_CLASS, n, d)),
    );
    out.extend(
        files_statics()
            .iter()
            .map(|(n, d)| stat("java/nio/file/Files", PATHS_CLASS, n, d)),
    );
    out.extend(
        PATH_METHODS
            .iter()
            .map(|(n, d)| instance("java/nio/file/Path", PATHS_CLASS, n, d)),
    );
    let channel = "Ljava/nio/channels/FileChannel;";
    let path = "Ljava/nio/file/Path;";
    out.push(stat(
        "java/nio/channels/FileChannel",
        CHANNEL_CLASS,
        "open",
        &format!("({path}[Ljava/nio/file/OpenOption;){channel}"),
    ));
    out.push(stat(
        "java/nio/channels/FileChannel",
        CHANNEL_CLASS,
        "open",
        &format!("({path}Ljava/util/Set;[Ljava/nio/file/attribute/FileAttribute;){channel}"),
    ));
    for (name, descriptor) in [
        ("writeBytes", "(Ljava/lang/String;)V"),
        ("writeChars", "(Ljava/lang/String;)V"),
        ("getChannel", "()Ljava/nio/channels/FileChannel;"),
    ] {
        out.push(instance(
            "java/io/RandomAccessFile",
            RANDOM_ACCESS_CLASS,
            name,
            descriptor,
        ));
    }
    for (name, descriptor) in [
        ("in", "Ljava/io/InputStream;"),
        ("out", "Ljava/io/PrintStream;"),
        ("err", "Ljava/io/PrintStream;"),
        ("setIn", "(Ljava/io/InputStream;)V"),
        ("setOut", "(Ljava/io/PrintStream;)V"),
        ("setErr", "(Ljava/io/PrintStream;)V"),
    ] {
        out.push(stat("java/lang/System", CONSOLE_CLASS, name, descriptor));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirects_fit_and_factories_return_their_class() {
        for r in redirects() {
            assert!(r.check().is_ok(), "{r:?}");
        }
        for f in FACTORIES {
            let s = f.stand_in();
            assert!(s.descriptor.ends_with(&format!(")L{};", f.class)), "{f:?}");
            assert!(f.descriptor.ends_with(")V"));
        }
        let all = redirects();
        for (i, a) in all.iter().enumerate() {
            assert!(all[i + 1..].iter().all(|b| b.from != a.from), "{a:?} twice");
        }
    }
}
