//! How JDK values are rebuilt in a carved test's source: value types from the text they were
//! recorded by (`new java.math.BigDecimal("1.50")`), collections and maps from their elements
//! (`new java.util.ArrayList(java.util.Arrays.asList(a, b))`; a container that contains itself
//! is not rebuilt).

use ferrosuite_testcase::statement::string_literal;

/// A JDK value type rebuilt from its recorded text (`Err` names a class with no rebuild).
pub(super) fn text_expr(class: &str, text: &str) -> Result<String, String> {
    let s = string_literal(text);
    Ok(match class {
        "java.lang.StringBuilder" => format!("new StringBuilder({s})"),
        "java.lang.StringBuffer" => format!("new StringBuffer({s})"),
        "java.math.BigInteger" => format!("new java.math.BigInteger({s})"),
        "java.math.BigDecimal" => format!("new java.math.BigDecimal({s})"),
        "java.io.File" => format!("new java.io.File({s})"),
        "java.net.URI" => format!("java.net.URI.create({s})"),
        "java.net.URL" => format!("new java.net.URL({s})"),
        "java.util.UUID" => format!("java.util.UUID.fromString({s})"),
        "java.util.Locale" => {
            format!(
                "java.util.Locale.forLanguageTag({})",
                string_literal(&text.replace('_', "-"))
            )
        }
        "java.util.regex.Pattern" => format!("java.util.regex.Pattern.compile({s})"),
        "java.util.Date" => format!("new java.util.Date({text}L)"),
        c if c.starts_with("sun.nio.fs.") => format!("java.nio.file.Paths.get({s})"),
        c if c.starts_with("sun.nio.cs.") => format!("java.nio.charset.Charset.forName({s})"),
        _ => return Err(format!("a {class}")),
    })
}

/// The type a variable holding a rebuilt value type is declared with.
pub(super) fn text_type(class: &str) -> &str {
    if class.starts_with("sun.nio.fs.") {
        "java.nio.file.Path"
    } else if class.starts_with("sun.nio.cs.") {
        "java.nio.charset.Charset"
    } else {
        class
    }
}

/// A JDK collection of this class with these elements (`list` is `Arrays.asList(…)`).
pub(super) fn collection_expr(class: &str, list: &str, parts: &[String]) -> Option<String> {
    Some(match class {
        "java.util.ArrayList"
        | "java.util.LinkedList"
        | "java.util.HashSet"
        | "java.util.LinkedHashSet"
        | "java.util.TreeSet"
        | "java.util.ArrayDeque"
        | "java.util.Vector"
        | "java.util.concurrent.CopyOnWriteArrayList"
        | "java.util.concurrent.ConcurrentLinkedQueue"
        | "java.util.PriorityQueue" => {
            format!("new {class}({list})")
        }
        "java.util.Arrays$ArrayList" => list.to_string(),
        "java.util.Collections$EmptyList" => "java.util.Collections.emptyList()".into(),
        "java.util.Collections$EmptySet" => "java.util.Collections.emptySet()".into(),
        "java.util.Collections$SingletonList" if parts.len() == 1 => {
            format!("java.util.Collections.singletonList({})", parts[0])
        }
        "java.util.Collections$SingletonSet" if parts.len() == 1 => {
            format!("java.util.Collections.singleton({})", parts[0])
        }
        c if c.starts_with("java.util.Collections$Unmodifiable") && c.ends_with("Set") => {
            format!("java.util.Collections.unmodifiableSet(new java.util.LinkedHashSet({list}))")
        }
        c if (c.starts_with("java.util.Collections$Unmodifiable")
            || c.starts_with("java.util.ImmutableCollections$List"))
            && (c.ends_with("List") || c.contains("$List")) =>
        {
            format!("java.util.Collections.unmodifiableList(new java.util.ArrayList({list}))")
        }
        c if c.starts_with("java.util.ImmutableCollections$Set") => {
            format!("java.util.Collections.unmodifiableSet(new java.util.LinkedHashSet({list}))")
        }
        _ => return None,
    })
}

/// The raw type a rebuilt collection is cast to where it is used.
pub(super) fn collection_cast(class: &str) -> &'static str {
    if class.ends_with("Set") || class.contains("$Set") || class.contains("Singleton$") {
        "(java.util.Set)"
    } else if class.contains("Deque") || class.contains("Queue") {
        "(java.util.Collection)"
    } else {
        "(java.util.List)"
    }
}

/// A JDK map of this class with these entries (keys and values alternating).
pub(super) fn map_expr(class: &str, parts: &[String]) -> Option<String> {
    let entries = if parts.is_empty() {
        String::new()
    } else {
        format!(", {}", parts.join(", "))
    };
    Some(match class {
        "java.util.HashMap"
        | "java.util.LinkedHashMap"
        | "java.util.TreeMap"
        | "java.util.Hashtable"
        | "java.util.concurrent.ConcurrentHashMap"
        | "java.util.IdentityHashMap"
        | "java.util.WeakHashMap" => {
            format!("CarveSupport.map(new {class}(){entries})")
        }
        "java.util.Collections$EmptyMap" => "java.util.Collections.emptyMap()".into(),
        c if c.starts_with("java.util.Collections$Unmodifiable")
            || c.starts_with("java.util.ImmutableCollections$Map") =>
        {
            format!(
                "java.util.Collections.unmodifiableMap(CarveSupport.map(new java.util.LinkedHashMap(){entries}))"
            )
        }
        _ => return None,
    })
}
