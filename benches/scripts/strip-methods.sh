#!/usr/bin/env bash
# A copy of a jar with the methods of one name removed from one class (ASM, from Debian's
# libasm-java): for experiments that need a subject without some of its methods, such as
# ArrayUtils without `shuffle`, whose overloads without a Random seed `new Random()` from the
# clock inside the JDK (the search on it is then not reproducible: BENCHMARKS.md, "Search").
#
#   benches/scripts/strip-methods.sh /usr/share/java/commons-lang3.jar \
#       org.apache.commons.lang3.ArrayUtils shuffle /tmp/lang3-noshuffle.jar
set -euo pipefail
[ $# -eq 4 ] || {
    echo "usage: $0 JAR CLASS METHOD OUT_JAR" >&2
    exit 2
}
jar=$(realpath "$1")
class=${2//.//}
method=$3
out=$(realpath -m "$4")
[ "$out" != "$jar" ] || {
    echo "$out: the output must not be the input jar" >&2
    exit 2
}
asm=/usr/share/java/asm.jar
[ -f "$asm" ] || {
    echo "$asm missing (apt-get install libasm-java)" >&2
    exit 2
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/Strip.java" << 'JAVA'
import java.nio.file.Files;
import java.nio.file.Paths;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/** Strip FILE METHOD: rewrites the class file FILE without the methods named METHOD. */
public class Strip {
    public static void main(String[] args) throws Exception {
        ClassReader reader = new ClassReader(Files.readAllBytes(Paths.get(args[0])));
        ClassWriter writer = new ClassWriter(0);
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String sig,
                    String[] exceptions) {
                return name.equals(args[1]) ? null
                        : super.visitMethod(access, name, desc, sig, exceptions);
            }
        }, 0);
        Files.write(Paths.get(args[0]), writer.toByteArray());
    }
}
JAVA
javac -d "$tmp" -cp "$asm" "$tmp/Strip.java"
mkdir "$tmp/jar"
(cd "$tmp/jar" && unzip -q "$jar")
[ -f "$tmp/jar/$class.class" ] || {
    echo "$jar: no $class" >&2
    exit 2
}
java -cp "$asm:$tmp" Strip "$tmp/jar/$class.class" "$method"
rm -f "$out"
(cd "$tmp/jar" && zip -q -r "$out" .)
echo "$out: $2 without $method"
