//! Readable names: variables after their types (or the field or parameter they feed), tests
//! after the method they exercise and how it ended, numbered only on clashes.
//!
//! ```
//! use ferrosuite_bytecode::descriptor::FieldType;
//! use ferrosuite_emit::names::{Scope, type_base};
//! let mut scope = Scope::default();
//! let stack = FieldType::Object("examples/Stack".into());
//! assert_eq!(scope.fresh(&type_base(&stack)), "stack");
//! assert_eq!(scope.fresh(&type_base(&stack)), "stack2");
//! assert_eq!(scope.fresh(&type_base(&FieldType::Int)), "i");
//! assert_eq!(scope.fresh("class"), "class2"); // a keyword is never a name
//! ```

use std::collections::BTreeSet;

use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_testcase::statement::java_type;

/// Java's reserved words and literals: never a variable or method name.
const RESERVED: &[&str] = &[
    "abstract",
    "assert",
    "boolean",
    "break",
    "byte",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extends",
    "false",
    "final",
    "finally",
    "float",
    "for",
    "goto",
    "if",
    "implements",
    "import",
    "instanceof",
    "int",
    "interface",
    "long",
    "native",
    "new",
    "null",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "short",
    "static",
    "strictfp",
    "super",
    "switch",
    "synchronized",
    "this",
    "throw",
    "throws",
    "transient",
    "true",
    "try",
    "var",
    "void",
    "volatile",
    "while",
    "_",
];

/// Whether `s` is a Java identifier that is not reserved (ASCII letters, digits, `_`, `$`).
#[must_use]
pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        && !RESERVED.contains(&s)
}

/// The simple name of a class from its internal or binary name (`java/util/Map$Entry` →
/// `Entry`).
#[must_use]
pub fn simple_name(class: &str) -> &str {
    class.rsplit(['/', '.', '$']).next().unwrap_or(class)
}

/// `FooBar` → `fooBar`; `URLDecoder` → `urlDecoder`; `X` → `x`.
#[must_use]
pub fn lower_camel(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let upper = chars.iter().take_while(|c| c.is_ascii_uppercase()).count();
    // Lower the leading capitals, but keep the last one of a run that starts a word.
    let lower = match upper {
        0 => 0,
        n if n == chars.len() => n,
        1 => 1,
        n => n - 1,
    };
    chars
        .iter()
        .enumerate()
        .map(|(i, c)| {
            if i < lower {
                c.to_ascii_lowercase()
            } else {
                *c
            }
        })
        .collect()
}

/// `fooBar` → `FooBar`.
#[must_use]
pub fn upper_camel(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
        None => String::new(),
    }
}

/// The base name of a variable of type `t`: the class's simple name in lower camel case
/// (`string`, `stack`), `…Array` for arrays, a short conventional name for primitives.
#[must_use]
pub fn type_base(t: &FieldType) -> String {
    match t {
        FieldType::Boolean => "flag".into(),
        FieldType::Byte => "b".into(),
        FieldType::Char => "c".into(),
        FieldType::Short => "s".into(),
        FieldType::Int => "i".into(),
        FieldType::Long => "n".into(),
        FieldType::Float => "f".into(),
        FieldType::Double => "d".into(),
        FieldType::Object(c) => {
            let simple = simple_name(c);
            let base = lower_camel(simple);
            if base.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) {
                base
            } else {
                "value".into()
            }
        }
        FieldType::Array(c) => {
            let inner = match &**c {
                FieldType::Object(_) | FieldType::Array(_) => type_base(c),
                prim => java_type(prim),
            };
            format!("{inner}Array")
        }
    }
}

/// The Java package (dotted, empty for the default package) of a class's internal name.
#[must_use]
pub fn package_of(internal: &str) -> String {
    internal
        .rfind('/')
        .map_or(String::new(), |i| internal[..i].replace('/', "."))
}

/// Names taken in one scope (a test method, or the methods of a class); hands out fresh ones.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    taken: BTreeSet<String>,
}

impl Scope {
    /// A scope in which `names` are already taken (class names a variable must not shadow,
    /// for example).
    #[must_use]
    pub fn with_taken<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        Scope {
            taken: names.into_iter().map(str::to_string).collect(),
        }
    }

    /// `base` if free, else `base2`, `base3`, …; a base that is not an identifier (a
    /// keyword) starts at `base2`, and an empty one becomes `value`.
    pub fn fresh(&mut self, base: &str) -> String {
        let base = if base.is_empty() { "value" } else { base };
        let mut name = base.to_string();
        let mut n = 1;
        while !is_identifier(&name) || self.taken.contains(&name) {
            n += 1;
            name = format!("{base}{n}");
        }
        self.taken.insert(name.clone());
        name
    }

    /// Whether `name` is taken.
    #[must_use]
    pub fn contains(&self, name: &str) -> bool {
        self.taken.contains(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camel_case() {
        assert_eq!(lower_camel("Stack"), "stack");
        assert_eq!(lower_camel("URLDecoder"), "urlDecoder");
        assert_eq!(lower_camel("URL"), "url");
        assert_eq!(lower_camel("X"), "x");
        assert_eq!(lower_camel("already"), "already");
        assert_eq!(upper_camel("push"), "Push");
        assert_eq!(upper_camel(""), "");
    }

    #[test]
    fn type_bases() {
        let o = |s: &str| FieldType::Object(s.into());
        assert_eq!(type_base(&o("java/lang/String")), "string");
        assert_eq!(type_base(&o("java/util/Map$Entry")), "entry");
        assert_eq!(type_base(&o("p/Outer$1")), "value");
        assert_eq!(
            type_base(&FieldType::Array(Box::new(FieldType::Int))),
            "intArray"
        );
        assert_eq!(
            type_base(&FieldType::Array(Box::new(o("java/lang/String")))),
            "stringArray"
        );
        assert_eq!(type_base(&o("p/Int")), "int"); // a keyword: Scope::fresh numbers it
        let mut s = Scope::default();
        assert_eq!(s.fresh(&type_base(&o("p/Int"))), "int2");
    }

    #[test]
    fn identifiers() {
        assert!(is_identifier("stack2"));
        assert!(is_identifier("$x"));
        assert!(!is_identifier("2x"));
        assert!(!is_identifier("new"));
        assert!(!is_identifier(""));
        assert!(!is_identifier("a-b"));
        let mut s = Scope::with_taken(["i"]);
        assert_eq!(s.fresh("i"), "i2");
        assert_eq!(s.fresh(""), "value");
        assert!(s.contains("i2"));
    }
}
