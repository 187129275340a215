//! What the emitted tests may name: members of the target release (from the JDK's `ct.sym`),
//! and user classes in JDK-looking packages read from the class path.

use std::path::PathBuf;

use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_emit::ClassPathTypes;

use crate::common::{javac, scratch};

#[test]
fn members_are_those_of_the_target_release() {
    use ferrosuite_emit::TypeInfo;
    let cp = ClassPath::parse("jrt").unwrap();
    let eight = ClassPathTypes::for_release(&cp, 8, None).unwrap();
    let running = ClassPathTypes::new(&cp);
    let list_of = ("java/util/List", "of", "()Ljava/util/List;");
    assert!(
        !eight.has_member(list_of.0, list_of.1, list_of.2),
        "List.of is Java 9"
    );
    assert!(running.has_member(list_of.0, list_of.1, list_of.2));
    // Inherited members count: ArrayList.stream comes from Collection (Java 8).
    assert!(eight.has_member(
        "java/util/ArrayList",
        "stream",
        "()Ljava/util/stream/Stream;"
    ));
    assert!(eight.has_member("java/lang/Integer", "MAX_VALUE", "I"));
    assert!(eight.has_member("java/util/ArrayList", "<init>", "(I)V"));
    // Constructors are not inherited.
    assert!(!eight.has_member("java/util/ArrayList", "<init>", "(Ljava/lang/String;)V"));
    assert!(!eight.has_member(
        "java/lang/StackWalker",
        "getInstance",
        "()Ljava/lang/StackWalker;"
    ));
    assert!(!eight.has_member("no/such/Class", "x", "()V"));

    // A user library in a JDK-looking package is read from the class path, not from ct.sym.
    let dir = scratch("emit-javax-user");
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("javax/ferro")).unwrap();
    std::fs::write(
        src.join("javax/ferro/Thing.java"),
        "package javax.ferro; public class Thing { public static int one() { return 1; } }",
    )
    .unwrap();
    let out = dir.join("classes");
    javac(&src, &[PathBuf::from("javax/ferro/Thing.java")], &[], &out).unwrap();
    let cp = ClassPath::parse(&format!("{}:jrt", out.display())).unwrap();
    let eight = ClassPathTypes::for_release(&cp, 8, None).unwrap();
    assert!(eight.has_member("javax/ferro/Thing", "one", "()I"));
    assert!(eight.accessible("javax/ferro/Thing", "p"));
    assert!(!eight.has_member("java/util/List", "of", "()Ljava/util/List;"));
}
