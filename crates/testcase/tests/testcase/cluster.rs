//! The test cluster on the fixtures of `fixtures/java/cluster` (compiled
//! with `javac` at test time by `fixtures/build.sh`) and on the Debian subject jars (skipped when
//! a jar is missing, unless `FERROSUITE_REQUIRE_SUBJECTS=1`).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use ferrosuite_bytecode::ClassFile;
use ferrosuite_bytecode::attributes::AttributeBody;
use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_bytecode::constant_pool::Constant;
use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_testcase::Error;
use ferrosuite_testcase::cluster::{
    ClusterConfig, GenericType, Operation, OperationKind, TestCluster, TypeKind,
};
use ferrosuite_testcase::statement::{Statement, VarRef};
use ferrosuite_testkit::subject;

/// The Java 8 fixtures compiled by `fixtures/build.sh`, once per test run.
fn fixtures() -> &'static PathBuf {
    ferrosuite_testkit::java8(env!("CARGO_TARGET_TMPDIR"))
}

pub(crate) fn fixture_cp() -> &'static ClassPath {
    static CP: OnceLock<ClassPath> = OnceLock::new();
    CP.get_or_init(|| ClassPath::parse(&format!("{}:jrt", fixtures().display())).unwrap())
}

pub(crate) fn build(cp: &ClassPath, cut: &str) -> TestCluster {
    TestCluster::build(cp, cut, &ClusterConfig::default()).unwrap()
}

fn object(n: &str) -> FieldType {
    FieldType::Object(n.into())
}

fn method<'c>(c: &'c TestCluster, name: &str) -> &'c Operation {
    let found: Vec<&Operation> = c.methods.iter().filter(|m| &*m.name == name).collect();
    assert_eq!(found.len(), 1, "{name}: {found:?}");
    found[0]
}

fn names(ops: &[Operation]) -> Vec<String> {
    ops.iter()
        .map(|o| format!("{}{}", o.name, o.descriptor))
        .collect()
}

fn has(ops: &[Operation], name: &str) -> bool {
    ops.iter().any(|o| &*o.name == name)
}

#[test]
fn cut_members_include_inherited_and_package_private_but_never_private() {
    let c = build(fixture_cp(), "cluster/Registry");
    assert_eq!(
        names(&c.constructors),
        ["<init>()V", "<init>(Lcluster/Shape;)V"],
        "the private constructor is absent, the package-private one present"
    );
    for m in [
        "addShape",
        "paint",
        "names",
        "weigh",
        "pay",
        "tick",
        "identity",
        "number",
        "sum",
        "key",
        "box",
        "price",
        "name",
        "packageMethod",
        "protectedMethod",
        // inherited from Base<String> (same package: protected and package-private count)
        "add",
        "size",
        "touch",
        "packageInBase",
        "helper",
        "toString",
        // default method of the superinterface Named
        "greeting",
    ] {
        assert!(has(&c.methods, m), "{m} missing:\n{}", c.describe());
    }
    for m in [
        "secret",
        "privateInBase",
        "hashCode",
        "equals",
        "getClass",
        "wait",
        "notify",
        "of",
        "<clinit>",
    ] {
        assert!(!has(&c.methods, m), "{m} present:\n{}", c.describe());
    }
    assert!(
        !c.methods.iter().any(|m| m.name.contains('$')),
        "lambdas and accessors"
    );
    // Inherited members are named through the CUT and remember where they come from.
    let add = method(&c, "add");
    assert_eq!(
        (&*add.class, add.declared_in.as_str()),
        ("cluster/Registry", "cluster/Base")
    );
    assert_eq!(method(&c, "toString").declared_in, "cluster/Base");
    assert_eq!(method(&c, "greeting").declared_in, "cluster/Named");
    let helper = method(&c, "helper");
    assert!(helper.is_static && !helper.needs_receiver());
    assert!(method(&c, "price").is_static);
    // Static methods first, then by name.
    assert!(c.methods.iter().take_while(|m| m.is_static).count() >= 2);
    assert!(!c.methods[0..2].iter().any(|m| !m.is_static));

    let fields = names(&c.fields);
    assert_eq!(
        fields,
        [
            "NAMELjava/lang/String;",
            "countI",
            "itemsLjava/util/List;",
            "limitI",
            "packageFieldI",
        ]
    );
    let name = c.fields.iter().find(|f| &*f.name == "NAME").unwrap();
    assert!(name.is_static && name.is_final_field());
}

#[test]
fn generic_parameters_record_element_types_bounds_and_the_erased_fallback() {
    let c = build(fixture_cp(), "cluster/Registry");
    let integer = object("java/lang/Integer");
    let string = object("java/lang/String");

    let p = &method(&c, "names").params[0];
    assert_eq!(p.ty, object("java/util/List"));
    assert_eq!(p.type_args, std::slice::from_ref(&string));
    assert_eq!(p.java(), "java.util.List<java.lang.String>");

    let p = &method(&c, "weigh").params[0];
    assert_eq!(p.type_args, [string.clone(), object("java/lang/Number")]);

    // <T> T identity(T): an unbounded variable erased to Object, Integer suggested.
    let id = method(&c, "identity");
    assert_eq!(id.params[0].ty, object("java/lang/Object"));
    assert!(id.params[0].erased_generic);
    assert!(id.ret.as_ref().unwrap().erased_generic);
    assert_eq!(id.type_params.len(), 1);
    assert_eq!(c.erased_generic_fallback, [integer.clone(), string.clone()]);
    assert!(
        id.to_string()
            .starts_with("<T> T cluster.Registry.identity(T)"),
        "{id}"
    );

    // <N extends Number> int number(N): the bound is the erasure, no fallback.
    let n = &method(&c, "number").params[0];
    assert_eq!(n.ty, object("java/lang/Number"));
    assert!(!n.erased_generic);

    // Base<T>.add(T) inherited by Registry extends Base<String>: T is String.
    let add = &method(&c, "add").params[0];
    assert_eq!(
        add.ty,
        object("java/lang/Object"),
        "the descriptor's erasure stays"
    );
    assert_eq!(
        add.generic,
        Some(GenericType::parse("Ljava/lang/String;").unwrap())
    );
    assert!(!add.erased_generic);
    let items = c.fields.iter().find(|f| &*f.name == "items").unwrap();
    assert_eq!(items.ret.as_ref().unwrap().type_args, [string]);

    // Non-generic members have no generic information.
    let pay = &method(&c, "pay").params[0];
    assert_eq!((pay.generic.as_ref(), pay.type_args.len()), (None, 0));
}

#[test]
fn generators_cover_interfaces_abstract_classes_factories_enums_boxes_and_arrays() {
    let c = build(fixture_cp(), "cluster/Registry");
    let info = |d: &str| {
        c.type_info(&FieldType::parse(d).unwrap())
            .unwrap_or_else(|| panic!("{d} missing:\n{}", c.describe()))
    };

    // The CUT itself, at depth 0, with its constructors.
    let cut = c.cut_info().unwrap();
    assert_eq!((cut.depth, &cut.kind), (0, &TypeKind::Class));
    assert_eq!(
        names(&cut.generators),
        ["<init>()V", "<init>(Lcluster/Shape;)V"]
    );

    // An interface implemented only in the fixture package (the anonymous class in
    // Shape.unit() does not count), plus its static factory.
    let shape = info("Lcluster/Shape;");
    assert_eq!(shape.kind, TypeKind::Interface);
    assert_eq!(shape.subtypes, ["cluster/Circle"]);
    assert_eq!(names(&shape.generators), ["unit()Lcluster/Shape;"]);
    assert_eq!(names(&info("Lcluster/Circle;").generators), ["<init>(D)V"]);
    let all: Vec<String> = c
        .generators_for(&object("cluster/Shape"))
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        all,
        [
            "static cluster.Shape cluster.Shape.unit()",
            "new cluster.Circle(double)"
        ]
    );

    // An abstract class: its subclass and its static factory.
    let counter = info("Lcluster/Counter;");
    assert_eq!(counter.kind, TypeKind::Abstract);
    assert_eq!(counter.subtypes, ["cluster/SimpleCounter"]);
    assert_eq!(names(&counter.generators), ["create()Lcluster/Counter;"]);

    // A private constructor: the static factory, the CUT's factory and the constant.
    let money = info("Lcluster/Money;").clone();
    let gens: Vec<(String, String)> = money
        .generators
        .iter()
        .map(|g| (g.class.to_string(), g.name.to_string()))
        .collect();
    assert_eq!(
        gens,
        [
            ("cluster/Money".to_string(), "of".to_string()),
            ("cluster/Registry".to_string(), "price".to_string()),
            ("cluster/Money".to_string(), "ZERO".to_string()),
        ]
    );

    // An enum: its constants.
    assert_eq!(
        c.enum_constants("cluster/Color").unwrap(),
        ["RED", "GREEN", "BLUE"]
    );
    let red = &info("Lcluster/Color;").generators[0];
    assert_eq!(red.kind, OperationKind::EnumConstant);
    assert_eq!(
        red.statement(None, vec![]),
        Statement::EnumConstant {
            class: "cluster/Color".into(),
            name: "RED".into()
        }
    );

    // A static nested class is usable; a non-static inner class is not a generator.
    assert_eq!(
        names(&info("Lcluster/Registry$Key;").generators),
        ["<init>(Ljava/lang/String;)V"]
    );

    // Boxes from primitives; primitives and String need nothing; arrays their component.
    let boxed = info("Ljava/lang/Integer;");
    assert_eq!(
        boxed.kind,
        TypeKind::Boxed {
            primitive: FieldType::Int
        }
    );
    assert_eq!(names(&boxed.generators), ["valueOf(I)Ljava/lang/Integer;"]);
    assert_eq!(info("Ljava/lang/String;").kind, TypeKind::String);
    assert_eq!(info("I").kind, TypeKind::Primitive);
    assert_eq!(
        info("[I").kind,
        TypeKind::Array {
            component: FieldType::Int
        }
    );
    assert_eq!(
        info("[Ljava/lang/Object;").kind,
        TypeKind::Array {
            component: object("java/lang/Object")
        }
    );

    // JDK interfaces get the documented defaults; Object is made directly or as String/Integer.
    assert_eq!(
        info("Ljava/util/List;").subtypes,
        ["java/util/ArrayList", "java/util/LinkedList"]
    );
    assert_eq!(
        info("Ljava/util/Map;").subtypes,
        ["java/util/HashMap", "java/util/TreeMap"]
    );
    let obj = info("Ljava/lang/Object;");
    assert_eq!(names(&obj.generators), ["<init>()V"]);
    assert_eq!(obj.subtypes, ["java/lang/String", "java/lang/Integer"]);
    assert!(
        names(&info("Ljava/util/ArrayList;").generators)
            .contains(&"<init>(Ljava/util/Collection;)V".to_string())
    );
    // Number (the bound of number(N)) and Integer (the erased-generic fallback) are needed.
    assert_eq!(info("Ljava/lang/Number;").subtypes[0], "java/lang/Integer");

    // A generator's statement.
    let of = &money.generators[0];
    assert_eq!(
        of.statement(Some(VarRef(9)), vec![VarRef(0), VarRef(1)]),
        Statement::method(
            "cluster/Money",
            "of",
            "(II)Lcluster/Money;",
            None,
            vec![VarRef(0), VarRef(1)]
        )
    );
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
}

#[test]
fn package_private_members_can_be_turned_off() {
    let config = ClusterConfig {
        package_private: false,
        ..ClusterConfig::default()
    };
    let c = TestCluster::build(fixture_cp(), "cluster/Registry", &config).unwrap();
    assert_eq!(names(&c.constructors), ["<init>()V"]);
    for m in ["packageMethod", "protectedMethod", "touch", "packageInBase"] {
        assert!(!has(&c.methods, m), "{m}");
    }
    assert!(has(&c.methods, "add"));
    assert!(!has(&c.fields, "packageField") && !has(&c.fields, "items"));
}

#[test]
fn object_methods_are_optional() {
    let config = ClusterConfig {
        object_methods: true,
        ..ClusterConfig::default()
    };
    let c = TestCluster::build(fixture_cp(), "cluster/Circle", &config).unwrap();
    let m: Vec<&str> = c.methods.iter().map(|m| &*m.name).collect();
    assert_eq!(m, ["area", "equals", "hashCode", "label", "toString"]);
    let c = build(fixture_cp(), "cluster/Circle");
    let m: Vec<&str> = c.methods.iter().map(|m| &*m.name).collect();
    assert_eq!(m, ["area", "label"]);
}

#[test]
fn abstract_and_interface_cuts_have_no_constructors_but_subclasses() {
    let c = build(fixture_cp(), "cluster/Counter");
    assert!(c.constructors.is_empty());
    assert_eq!(
        names(&c.methods),
        ["create()Lcluster/Counter;", "get()I", "increment()V"]
    );
    assert_eq!(c.cut_info().unwrap().subtypes, ["cluster/SimpleCounter"]);
    assert_eq!(names(&c.fields), ["countI"]);

    let c = build(fixture_cp(), "cluster/Shape");
    assert!(c.constructors.is_empty());
    assert_eq!(
        names(&c.methods),
        [
            "unit()Lcluster/Shape;",
            "area()D",
            "label()Ljava/lang/String;"
        ]
    );
    assert_eq!(c.cut_info().unwrap().subtypes, ["cluster/Circle"]);
    assert_eq!(c.generators_for(&object("cluster/Shape")).len(), 2);
}

#[test]
fn enum_cut() {
    let c = build(fixture_cp(), "cluster/Color");
    assert!(c.constructors.is_empty(), "enum constructors are private");
    for m in ["next", "values", "valueOf", "name", "ordinal", "compareTo"] {
        assert!(has(&c.methods, m), "{m}:\n{}", c.describe());
    }
    assert!(
        !has(&c.methods, "clone") && !has(&c.methods, "finalize"),
        "protected in java.lang"
    );
    assert_eq!(
        c.enum_constants("cluster/Color").unwrap(),
        ["RED", "GREEN", "BLUE"]
    );
    assert_eq!(c.generators_for(&object("cluster/Color")).len(), 3);
    assert!(
        c.fields
            .iter()
            .all(|f| f.kind == OperationKind::EnumConstant),
        "{:?}",
        names(&c.fields)
    );
}

#[test]
fn nested_and_bad_cuts() {
    let c = build(fixture_cp(), "cluster/Registry$Entry");
    assert!(c.constructors.is_empty());
    assert!(
        c.warnings.iter().any(|w| w.contains("enclosing instance")),
        "{:?}",
        c.warnings
    );
    let c = build(fixture_cp(), "cluster/Registry$Key");
    assert_eq!(names(&c.constructors), ["<init>(Ljava/lang/String;)V"]);

    let e =
        TestCluster::build(fixture_cp(), "cluster/Shape$1", &ClusterConfig::default()).unwrap_err();
    assert!(matches!(e, Error::Untestable { .. }), "{e}");
    let e =
        TestCluster::build(fixture_cp(), "cluster/Nope", &ClusterConfig::default()).unwrap_err();
    assert!(
        matches!(e, Error::ClassNotFound(ref n) if n == "cluster.Nope"),
        "{e}"
    );
    let e = TestCluster::build(
        fixture_cp(),
        "java/lang/Deprecated",
        &ClusterConfig::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("annotation"), "{e}");
}

#[test]
fn operations_can_be_filtered_everywhere() {
    let all = build(fixture_cp(), "cluster/Registry");
    let count = |c: &TestCluster| {
        c.members().count()
            + c.types.values().map(|t| t.generators.len()).sum::<usize>()
            + c.result_methods.values().map(Vec::len).sum::<usize>()
    };
    let total = count(&all);
    assert!(total > 0);
    let mut c = all.clone();
    assert_eq!(c.retain_operations(|_| true), 0);
    assert_eq!(c, all);
    let mut no_ctor = all.clone();
    let mut only_ctors = all.clone();
    only_ctors.retain_operations(|op| &*op.name == "<init>");
    let ctors = count(&only_ctors);
    assert!(ctors > 0 && ctors < total);
    assert_eq!(no_ctor.retain_operations(|op| &*op.name != "<init>"), ctors);
    assert!(no_ctor.constructors.is_empty());
    assert!(
        no_ctor
            .types
            .values()
            .flat_map(|t| &t.generators)
            .all(|g| &*g.name != "<init>")
    );
    assert_eq!(c.retain_operations(|_| false), total);
    assert_eq!(count(&c), 0);
    assert!(c.result_methods.is_empty());
}

#[test]
fn clusters_are_deterministic_and_serialize() {
    let a = build(fixture_cp(), "cluster/Registry");
    let cp2 = ClassPath::parse(&format!("{}:jrt", fixtures().display())).unwrap();
    let b = build(&cp2, "cluster/Registry");
    assert_eq!(a, b);
    let dotted = TestCluster::build(&cp2, "cluster.Registry", &ClusterConfig::default()).unwrap();
    assert_eq!(dotted, a);
    assert_eq!(a.describe(), b.describe());
    let json = serde_json::to_string(&a).unwrap();
    assert_eq!(serde_json::from_str::<TestCluster>(&json).unwrap(), a);
    let bin = postcard::to_stdvec(&a).unwrap();
    assert_eq!(postcard::from_bytes::<TestCluster>(&bin).unwrap(), a);
    let text = a.describe();
    assert!(
        text.starts_with("test cluster of class cluster.Registry\n"),
        "{text}"
    );
    assert!(
        text.contains("cluster.Color (enum): RED, GREEN, BLUE"),
        "{text}"
    );
    assert!(
        text.contains("int cluster.Registry.names(java.util.List<java.lang.String>)"),
        "{text}"
    );
}

#[test]
fn depth_limits_discovery() {
    let shallow = ClusterConfig {
        max_depth: 1,
        ..ClusterConfig::default()
    };
    let c = TestCluster::build(fixture_cp(), "cluster/Registry", &shallow).unwrap();
    assert!(c.types.values().all(|t| t.depth <= 1));
    // Circle is a subtype of a depth-1 type (same depth), but its parameter `double` is at 2.
    assert!(c.type_info(&object("cluster/Circle")).is_some());
    assert!(c.type_info(&FieldType::Double).is_none());
    let deep = build(fixture_cp(), "cluster/Registry");
    assert!(deep.types.len() > c.types.len());
    let tiny = ClusterConfig {
        max_types: 3,
        ..ClusterConfig::default()
    };
    let c = TestCluster::build(fixture_cp(), "cluster/Registry", &tiny).unwrap();
    assert_eq!(c.types.len(), 3);
    assert!(
        c.warnings.iter().any(|w| w.contains("max_types")),
        "{:?}",
        c.warnings
    );
}

/// Rewrites the `Signature` attribute of a member of `class` (in the fixtures) and writes the
/// class into a fresh directory, which goes first on the class path.
fn with_signature(class: &str, member: &str, signature: &str, dir: &str) -> ClassPath {
    let bytes = std::fs::read(fixtures().join(format!("{class}.class"))).unwrap();
    let mut cf = ClassFile::parse(&bytes).unwrap();
    let m = cf
        .methods
        .iter()
        .chain(&cf.fields)
        .find(|m| cf.member_name(m).unwrap() == member)
        .unwrap();
    let idx = m
        .attributes
        .iter()
        .find_map(|a| match a.body {
            AttributeBody::Signature(i) => Some(i),
            _ => None,
        })
        .unwrap();
    cf.constant_pool
        .replace(idx, Constant::Utf8(signature.as_bytes().into()))
        .unwrap();
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(dir);
    let _ = std::fs::remove_dir_all(&out);
    let file = out.join(format!("{class}.class"));
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, cf.to_bytes().unwrap()).unwrap();
    ClassPath::parse(&format!("{}:{}:jrt", out.display(), fixtures().display())).unwrap()
}

#[test]
fn malformed_signatures_fall_back_to_the_descriptor() {
    // `names` has no other Signature-sharing member: its text is unique in the pool.
    let cp = with_signature(
        "cluster/Registry",
        "names",
        "(Ljava/util/List<Q>;)I",
        "bad-signature",
    );
    let c = build(&cp, "cluster/Registry");
    let p = &method(&c, "names").params[0];
    assert_eq!(
        (p.ty.clone(), p.generic.clone(), p.type_args.len()),
        (object("java/util/List"), None, 0)
    );
    let w = c.warnings.iter().find(|w| w.contains("malformed")).unwrap();
    assert!(
        w.contains("cluster/Registry") && w.contains("method names(Ljava/util/List;)I"),
        "{w}"
    );

    // Well-formed but not matching the descriptor: also the descriptor.
    let cp = with_signature(
        "cluster/Registry",
        "names",
        "(Ljava/util/Set<Ljava/lang/String;>;)I",
        "wrong-signature",
    );
    let c = build(&cp, "cluster/Registry");
    assert_eq!(method(&c, "names").params[0].generic, None);
    assert!(
        c.warnings.iter().any(|w| w.contains("does not match")),
        "{:?}",
        c.warnings
    );
}

// ---------------------------------------------------------------------------------------------
// Debian subject jars
// ---------------------------------------------------------------------------------------------

fn timed(cp: &ClassPath, cut: &str) -> TestCluster {
    let start = Instant::now();
    let c = build(cp, cut);
    let took = start.elapsed();
    eprintln!(
        "cluster of {cut}: {} methods, {} types, {} warnings in {took:.2?}",
        c.methods.len(),
        c.types.len(),
        c.warnings.len()
    );
    if std::env::var_os("FERROSUITE_PRINT_CLUSTER").is_some() {
        eprintln!("{}", c.describe());
    }
    assert!(took < Duration::from_secs(20), "{cut} took {took:?}");
    c
}

fn jar_cp(jar: &Path) -> ClassPath {
    ClassPath::parse(&format!("{}:jrt", jar.display())).unwrap()
}

#[test]
fn commons_lang3_string_utils() {
    let Some(jar) = subject("commons-lang3") else {
        return;
    };
    let cp = jar_cp(&jar);
    let c = timed(&cp, "org/apache/commons/lang3/StringUtils");
    assert_eq!(names(&c.constructors), ["<init>()V"]);
    assert!(c.methods.len() > 200, "{}", c.methods.len());
    assert!(c.methods.iter().all(|m| m.is_static));
    let blank = c
        .methods
        .iter()
        .find(|m| &*m.name == "isBlank" && &*m.descriptor == "(Ljava/lang/CharSequence;)Z")
        .unwrap();
    assert_eq!(blank.params[0].ty, object("java/lang/CharSequence"));
    let cs = c.type_info(&object("java/lang/CharSequence")).unwrap();
    assert_eq!(cs.subtypes, ["java/lang/String", "java/lang/StringBuilder"]);
    assert!(has(&c.fields, "EMPTY") && has(&c.fields, "INDEX_NOT_FOUND"));
    // join(Iterable<?>, String): `?` falls back to Integer.
    let join = c
        .methods
        .iter()
        .find(|m| {
            &*m.name == "join"
                && &*m.descriptor == "(Ljava/lang/Iterable;Ljava/lang/String;)Ljava/lang/String;"
        })
        .unwrap();
    assert_eq!(join.params[0].type_args, [object("java/lang/Integer")]);
    assert!(
        c.type_info(&object("java/lang/Iterable"))
            .unwrap()
            .subtypes
            .contains(&"java/util/ArrayList".to_string())
    );
    assert!(
        c.type_info(&object("java/util/Locale"))
            .is_some_and(|l| !l.generators.is_empty())
    );
}

/// A `Path` parameter gets real paths from `Paths.get`, a factory another JDK class declares
/// (`JDK_FACTORIES`): no implementation of the interface is public.
#[test]
fn guava_more_files_gets_paths_from_paths_get() {
    let Some(jar) = subject("guava") else { return };
    let cp = jar_cp(&jar);
    let c = timed(&cp, "com/google/common/io/MoreFiles");
    let path = c.type_info(&object("java/nio/file/Path")).unwrap();
    assert!(
        names(&path.generators)
            .contains(&"get(Ljava/lang/String;[Ljava/lang/String;)Ljava/nio/file/Path;".into()),
        "{:?}",
        names(&path.generators)
    );
    let get = path.generators.iter().find(|g| &*g.name == "get").unwrap();
    assert_eq!(&*get.class, "java/nio/file/Paths");
}

#[test]
fn guava_joiner_and_splitter() {
    let Some(jar) = subject("guava") else { return };
    let cp = jar_cp(&jar);
    let j = timed(&cp, "com/google/common/base/Joiner");
    assert!(j.constructors.is_empty(), "{:?}", names(&j.constructors));
    let on: Vec<&str> = j
        .methods
        .iter()
        .filter(|m| &*m.name == "on")
        .map(|m| &*m.descriptor)
        .collect();
    assert_eq!(
        on,
        [
            "(C)Lcom/google/common/base/Joiner;",
            "(Ljava/lang/String;)Lcom/google/common/base/Joiner;"
        ]
    );
    assert_eq!(
        names(&j.cut_info().unwrap().generators),
        [
            "on(C)Lcom/google/common/base/Joiner;",
            "on(Ljava/lang/String;)Lcom/google/common/base/Joiner;"
        ]
    );
    assert!(
        !j.methods.iter().any(|m| m.name.contains('$')),
        "access$100 is synthetic"
    );
    for m in [
        "join",
        "appendTo",
        "skipNulls",
        "useForNull",
        "withKeyValueSeparator",
    ] {
        assert!(has(&j.methods, m), "{m}");
    }
    // <A extends Appendable> A appendTo(A, Iterable<?>): the bound, then its default.
    let append = j
        .methods
        .iter()
        .find(|m| {
            &*m.name == "appendTo"
                && m.descriptor
                    .starts_with("(Ljava/lang/Appendable;Ljava/lang/Iterable;")
        })
        .unwrap();
    assert_eq!(append.params[0].ty, object("java/lang/Appendable"));
    assert!(!append.params[0].erased_generic);
    assert_eq!(append.params[1].type_args, [object("java/lang/Integer")]);
    assert_eq!(
        j.type_info(&object("java/lang/Appendable"))
            .unwrap()
            .subtypes[0],
        "java/lang/StringBuilder"
    );

    let s = timed(&cp, "com/google/common/base/Splitter");
    assert!(s.constructors.is_empty());
    for (name, desc) in [
        ("on", "(C)Lcom/google/common/base/Splitter;"),
        (
            "on",
            "(Ljava/lang/String;)Lcom/google/common/base/Splitter;",
        ),
        (
            "on",
            "(Ljava/util/regex/Pattern;)Lcom/google/common/base/Splitter;",
        ),
        (
            "onPattern",
            "(Ljava/lang/String;)Lcom/google/common/base/Splitter;",
        ),
        ("fixedLength", "(I)Lcom/google/common/base/Splitter;"),
        ("split", "(Ljava/lang/CharSequence;)Ljava/lang/Iterable;"),
    ] {
        assert!(
            s.methods
                .iter()
                .any(|m| &*m.name == name && &*m.descriptor == desc),
            "{name}{desc}"
        );
    }
    let split = s.methods.iter().find(|m| &*m.name == "split").unwrap();
    assert_eq!(
        split.ret.as_ref().unwrap().type_args,
        [object("java/lang/String")]
    );
    // Pattern has no public constructor but Pattern.compile; CharMatcher is abstract with
    // static factories of its own.
    let pattern = s.type_info(&object("java/util/regex/Pattern")).unwrap();
    assert!(
        pattern.generators.iter().any(|g| &*g.name == "compile"),
        "{pattern:?}"
    );
    let cm = s
        .type_info(&object("com/google/common/base/CharMatcher"))
        .unwrap();
    assert_eq!(cm.kind, TypeKind::Abstract);
    assert!(
        cm.generators
            .iter()
            .any(|g| &*g.name == "is" && g.is_static)
    );
    // What `split` returns gets its methods called, and so does what those return: the
    // anonymous iterator behind them is Splitter's own code.
    let iterable = &s.result_methods["java/lang/Iterable"];
    assert!(has(iterable, "iterator"), "{:?}", names(iterable));
    let iterator = &s.result_methods["java/util/Iterator"];
    for m in ["hasNext", "next"] {
        assert!(has(iterator, m), "{m}: {:?}", names(iterator));
    }
    assert!(has(
        &s.result_methods["com/google/common/base/Splitter$MapSplitter"],
        "split"
    ));
    assert!(
        s.result_methods
            .values()
            .flatten()
            .all(|m| !m.is_static && *m.class != *s.cut),
        "instance methods of other classes only"
    );
    // Their parameters are needed types like any other.
    assert!(
        s.type_info(&object("java/util/function/Consumer"))
            .is_some(),
        "Iterator.forEachRemaining(Consumer)"
    );
    for skipped in ["java/lang/String", "java/lang/Object", "java/lang/Class"] {
        assert!(!s.result_methods.contains_key(skipped), "{skipped}");
    }
}

#[test]
fn commons_collections4_hash_bag() {
    let Some(jar) = subject("commons-collections4") else {
        return;
    };
    let cp = jar_cp(&jar);
    let c = timed(&cp, "org/apache/commons/collections4/bag/HashBag");
    assert_eq!(
        names(&c.constructors),
        ["<init>()V", "<init>(Ljava/util/Collection;)V"]
    );
    assert_eq!(c.type_params.len(), 1);
    // Inherited from AbstractMapBag<E>, E of HashBag unbounded: the fallback.
    let add = c
        .methods
        .iter()
        .find(|m| &*m.name == "add" && &*m.descriptor == "(Ljava/lang/Object;)Z")
        .unwrap();
    assert_eq!(
        add.declared_in,
        "org/apache/commons/collections4/bag/AbstractMapBag"
    );
    assert!(add.params[0].erased_generic);
    assert!(has(&c.methods, "getCount") && has(&c.methods, "uniqueSet"));
    // HashBag(Collection<? extends E>): E unbounded, Integer elements.
    assert_eq!(
        c.constructors[1].params[0].type_args,
        [object("java/lang/Integer")]
    );
    let coll = c.type_info(&object("java/util/Collection")).unwrap();
    assert_eq!(coll.subtypes[0], "java/util/ArrayList");
    assert!(c.type_info(&object("java/lang/Integer")).is_some());
}

#[test]
fn cast_classes_of_the_cut_and_its_nested_classes_are_cast_subtypes() {
    let c = build(fixture_cp(), "mocking/Kinds");
    let ty = &c.types[&object("java/lang/reflect/Type").descriptor()];
    // Alphabetical; `Class` is concrete and `Kinds$Checker` no subtype of `Type`.
    assert_eq!(
        ty.cast_subtypes,
        [
            "java/lang/reflect/GenericArrayType",
            "java/lang/reflect/ParameterizedType",
            "java/lang/reflect/WildcardType"
        ]
    );
    let p = &c.types[&object("java/lang/reflect/ParameterizedType").descriptor()];
    assert_eq!(p.kind, TypeKind::Interface);
    assert!(p.generators.is_empty() && p.cast_subtypes.is_empty());
    // Types the CUT never tests keep none.
    let cut = &c.types[&object("mocking/Kinds").descriptor()];
    assert!(cut.cast_subtypes.is_empty());
}

#[test]
fn package_statics_the_cut_reads_join_its_members_when_asked() {
    let cp = fixture_cp();
    // GreenPerson asks ChargingStation.takeAvailableStations() (static, package-private,
    // returns a List): shared state a test can only set up through that accessor.
    let plain = build(cp, "cling/GreenPerson");
    assert!(
        !plain
            .methods
            .iter()
            .any(|m| &*m.name == "takeAvailableStations")
    );
    let with = TestCluster::build(
        cp,
        "cling/GreenPerson",
        &ClusterConfig {
            package_statics: true,
            ..ClusterConfig::default()
        },
    )
    .unwrap();
    let op = method(&with, "takeAvailableStations");
    assert_eq!(&*op.class, "cling/ChargingStation");
    assert!(op.is_static);
    // The list it gives gets its result methods (add), so a test can fill it.
    assert!(
        with.result_methods
            .get("java/util/List")
            .is_some_and(|ms| ms.iter().any(|m| &*m.name == "add")),
        "{:?}",
        with.result_methods.keys().collect::<Vec<_>>()
    );
    // Statics of the CUT's own class and of the JDK are not added twice or at all.
    assert!(with.methods.iter().all(|m| !m.class.starts_with("java/")));
}

#[test]
fn the_library_classes_the_cut_takes_get_their_instance_methods_called() {
    let c = build(fixture_cp(), "cluster/Registry");
    // `tick(Counter c)`: a test may call `counter.increment()` before passing it.
    let counter = c
        .result_methods
        .get("cluster/Counter")
        .expect("Counter's methods");
    let names: Vec<&str> = counter.iter().map(|m| &*m.name).collect();
    // `increment()` changes it; the getter `get()` would not.
    assert!(
        names.contains(&"increment") && !names.contains(&"get"),
        "{names:?}"
    );
    assert!(counter.iter().all(|m| !m.is_static), "{names:?}");
    // JDK parameter types the CUT does not return (`Map`) are not configured this way, nor
    // is the CUT itself.
    let keys: Vec<&String> = c.result_methods.keys().collect();
    assert!(!c.result_methods.contains_key("java/util/Map"), "{keys:?}");
    assert!(
        !c.result_methods.contains_key("cluster/Registry"),
        "{keys:?}"
    );
}
