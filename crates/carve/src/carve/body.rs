//! One recorded call as the body of a JUnit test: mocks for the call's collaborators answering
//! what they answered, the receiver and arguments rebuilt from their recorded state, the static
//! fields the call read set to what it read, the call, and checks of its outcome, of the
//! receiver's changed fields and of the calls on the mocks, in order.
//!
//! ```text
//! PriceList priceList = mock(PriceList.class);
//! doReturn(50).doReturn(50).when(priceList).priceOf(any());
//! Cart cart = CarveSupport.allocate(Cart.class);
//! CarveSupport.set(cart, "shop.Cart", "prices", priceList);
//! ...
//! long result = cart.total();
//! assertEquals(100L, result);
//! InOrder inOrder = inOrder(priceList);
//! inOrder.verify(priceList).priceOf(eq("apple"));
//! ...
//! verifyNoMoreInteractions(priceList);
//! ```
//!
//! A call that cannot be rebuilt faithfully is not carved, with the reason: a value the test
//! needs cut by a recording limit, an object whose state could not be read, a collaborator no
//! mock can stand for, a class a test cannot name.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use ferrosuite_bytecode::descriptor::{FieldType, MethodDescriptor};
use ferrosuite_bytecode::instrument::record::{CallTarget, RecordedMethod, StaticField};
use ferrosuite_emit::names::{Scope, lower_camel, simple_name, upper_camel};
use ferrosuite_testcase::statement::{java_type, string_literal};

use super::jdk::{collection_cast, collection_expr, map_expr, text_expr, text_type};
use super::literal::{component_source, is_primitive, literal};
use crate::model::{CallRecord, Event, Outcome, Thrown, Value};

/// What a test may name: answers whether a class (binary name) is accessible from the test's
/// package, and whether it can be mocked.
pub trait Types {
    /// The class can be named in source in the test's package.
    fn accessible(&self, binary: &str) -> bool;
    /// The class can be mocked (accessible, not final).
    fn mockable(&self, binary: &str) -> bool;
    /// The method `name descriptor` that a call on an object of `binary` runs is final (a
    /// mock of the class runs it for real: it cannot be stubbed or verified).
    fn final_method(&self, _binary: &str, _name: &str, _descriptor: &str) -> bool {
        false
    }
}

/// A carved test body, or why there is none.
pub type Carved = std::result::Result<Body, String>;

/// A test body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Body {
    /// A name for the test: the method and its outcome (`total_returns150`).
    pub name: String,
    /// Statements, one per line.
    pub lines: Vec<String>,
    /// Mockito is used.
    pub mocks: bool,
    /// The test sets static fields (which the class's `@AfterEach` puts back).
    pub sets_statics: bool,
}

/// The binary name's source form (`a.b.Outer$Inner` → `a.b.Outer.Inner`).
#[must_use]
pub fn source_name(binary: &str) -> String {
    binary.replace('$', ".")
}

/// The Mockito matcher of a parameter type.
fn any_matcher(t: &FieldType) -> &'static str {
    match t {
        FieldType::Boolean => "anyBoolean()",
        FieldType::Byte => "anyByte()",
        FieldType::Char => "anyChar()",
        FieldType::Short => "anyShort()",
        FieldType::Int => "anyInt()",
        FieldType::Long => "anyLong()",
        FieldType::Float => "anyFloat()",
        FieldType::Double => "anyDouble()",
        FieldType::Object(_) | FieldType::Array(_) => "any()",
    }
}

/// Builds one body; variables are named after their class, numbered when repeated.
struct Builder<'a> {
    types: &'a dyn Types,
    lines: Vec<String>,
    vars: HashMap<u32, String>,
    names: Scope,
    mocks: BTreeMap<u32, String>,
    collaborators: BTreeSet<u32>,
    /// The full definitions in the call's receiver and arguments, by number: a reference cut by
    /// the depth limit, or a back reference, is built from the definition met elsewhere.
    defs: HashMap<u32, &'a Value>,
    /// Numbers something refers back to (a value type met twice gets a variable).
    shared: HashSet<u32>,
    /// Arrays, collections and maps being built (their elements cannot refer to them).
    building: HashSet<u32>,
    /// Record numbers of the objects an unstubbed mock stands for (the snapshot did not show
    /// them whole); their variables are in `vars`.
    stand_ins: HashSet<u32>,
}

/// Whether a mock may stand for an object of `class` the record cut or could not read: not
/// an array, and not of `java.lang` or `java.util` (strings, boxes, collections, maps and
/// iterators, whose calls the recorder does not watch).
fn stand_in_allowed(class: &str) -> bool {
    !class.starts_with('[') && !class.starts_with("java.lang.") && !class.starts_with("java.util.")
}

/// Indexes the definitions in `v` and the numbers it refers back to (see [`Builder::defs`]).
fn index<'a>(v: &'a Value, defs: &mut HashMap<u32, &'a Value>, shared: &mut HashSet<u32>) {
    match v {
        Value::BackRef { r } | Value::Ref { r, .. } => {
            shared.insert(*r);
        }
        Value::Object { r, fields, .. } => {
            defs.entry(*r).or_insert(v);
            for f in fields {
                index(&f.value, defs, shared);
            }
        }
        Value::Array { r, items, .. } | Value::Collection { r, items, .. } => {
            defs.entry(*r).or_insert(v);
            for i in items {
                index(i, defs, shared);
            }
        }
        Value::Map { r, entries, .. } => {
            defs.entry(*r).or_insert(v);
            for (k, x) in entries {
                index(k, defs, shared);
                index(x, defs, shared);
            }
        }
        Value::Text { r, .. } => {
            defs.entry(*r).or_insert(v);
        }
        _ => {}
    }
}

impl Builder<'_> {
    /// A variable named after `class` (`priceList`, `priceList2`, …).
    fn fresh(&mut self, class: &str) -> String {
        let simple = simple_name(class).trim_start_matches(|c: char| c.is_ascii_digit());
        let base: String = simple
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        self.names.fresh(&lower_camel(&base))
    }

    /// An expression for `v`, adding the statements that build it.
    fn expr(&mut self, v: &Value) -> Result<String, String> {
        if let Some(l) = literal(v) {
            return Ok(l);
        }
        match v {
            Value::Enum { class, name } => Ok(if self.types.accessible(class) {
                format!("{}.{name}", source_name(class))
            } else {
                format!(
                    "CarveSupport.enumValue({}, {})",
                    string_literal(class),
                    string_literal(name)
                )
            }),
            Value::Class { name } => Ok(format!("CarveSupport.type({})", string_literal(name))),
            Value::BackRef { r } => {
                if let Some(v) = self.vars.get(r).or_else(|| self.mocks.get(r)) {
                    return Ok(v.clone());
                }
                match self.defs.get(r).copied() {
                    Some(d) if !self.building.contains(r) => self.expr(d),
                    _ => Err(format!("object {r} referred to before it was built")),
                }
            }
            Value::Ref { r, class, .. } | Value::Opaque { r, class, .. } => {
                if let Some(m) = self.mocks.get(r) {
                    return Ok(m.clone());
                }
                if let Some(v) = self.vars.get(r) {
                    return Ok(v.clone());
                }
                if let Some(d) = self.defs.get(r).copied() {
                    if matches!(v, Value::Ref { .. }) && !self.building.contains(r) {
                        return self.expr(d);
                    }
                }
                // An object the snapshot did not show whole, on which the call made no call (it
                // would have been a collaborator with a mock): an unstubbed mock stands for it.
                // Not for JDK state (collections, strings, boxes), which the recorder does not
                // watch calls on; validation drops a test whose call read the object's fields.
                if stand_in_allowed(class) && self.types.mockable(class) {
                    let var = self.fresh(class);
                    let t = source_name(class);
                    self.lines.push(format!(
                        "{t} {var} = mock({t}.class); // not used by the call: a stand-in"
                    ));
                    self.vars.insert(*r, var.clone());
                    self.stand_ins.insert(*r);
                    return Ok(var);
                }
                Err(match v {
                    Value::Ref { .. } => format!("a {class} past the snapshot's depth or size"),
                    _ => format!("a {class} whose state could not be read"),
                })
            }
            Value::Text { r, class, text } => {
                if let Some(v) = self.vars.get(r) {
                    return Ok(v.clone());
                }
                let e = text_expr(class, text)?;
                if !self.shared.contains(r) {
                    return Ok(e);
                }
                // Met twice (a buffer two fields share): one object, as recorded.
                let var = self.fresh(class);
                self.lines
                    .push(format!("{} {var} = {e};", text_type(class)));
                self.vars.insert(*r, var.clone());
                Ok(var)
            }
            Value::Array {
                r,
                component,
                length,
                items,
            } => {
                if let Some(v) = self.vars.get(r) {
                    return Ok(v.clone());
                }
                if items.len() != *length as usize {
                    return Err(format!("an array of {length} kept {}", items.len()));
                }
                self.building.insert(*r);
                let elem =
                    component_source(component).ok_or_else(|| format!("array of {component}"))?;
                if !is_primitive(component)
                    && !component.starts_with('[')
                    && !self.types.accessible(component)
                {
                    return Err(format!("array of {component}, a class tests cannot name"));
                }
                let mut parts = Vec::with_capacity(items.len());
                for i in items {
                    parts.push(self.expr(i)?);
                }
                self.building.remove(r);
                let var = self.fresh(&format!(
                    "{}Array",
                    component.rsplit('.').next().unwrap_or("a")
                ));
                self.lines.push(format!(
                    "{elem}[] {var} = new {elem}[] {{{}}};",
                    parts.join(", ")
                ));
                self.vars.insert(*r, var.clone());
                Ok(var)
            }
            Value::Collection {
                r,
                class,
                size,
                items,
            } => {
                if let Some(v) = self.vars.get(r) {
                    return Ok(v.clone());
                }
                if items.len() != *size as usize {
                    return Err(format!("a {class} of {size} kept {}", items.len()));
                }
                self.building.insert(*r);
                let mut parts = Vec::with_capacity(items.len());
                for i in items {
                    parts.push(self.expr(i)?);
                }
                self.building.remove(r);
                let list = format!("java.util.Arrays.asList({})", parts.join(", "));
                let e =
                    collection_expr(class, &list, &parts).ok_or_else(|| format!("a {class}"))?;
                let var = self.fresh(class);
                self.lines
                    .push(format!("java.util.Collection {var} = {e};"));
                self.vars.insert(*r, var.clone());
                Ok(format!("({} {var})", collection_cast(class)))
            }
            Value::Map {
                r,
                class,
                size,
                entries,
            } => {
                if let Some(v) = self.vars.get(r) {
                    return Ok(v.clone());
                }
                if entries.len() != *size as usize {
                    return Err(format!("a {class} of {size} kept {}", entries.len()));
                }
                self.building.insert(*r);
                let mut parts = Vec::with_capacity(entries.len() * 2);
                for (k, v) in entries {
                    parts.push(self.expr(k)?);
                    parts.push(self.expr(v)?);
                }
                self.building.remove(r);
                let e = map_expr(class, &parts).ok_or_else(|| format!("a {class}"))?;
                let var = self.fresh(class);
                self.lines.push(format!("java.util.Map {var} = {e};"));
                self.vars.insert(*r, var.clone());
                Ok(var)
            }
            Value::Object {
                r,
                class,
                fields,
                partial,
                ..
            } => {
                if let Some(m) = self.mocks.get(r) {
                    return Ok(m.clone());
                }
                if let Some(v) = self.vars.get(r) {
                    return Ok(v.clone());
                }
                if *partial {
                    return Err(format!("a {class} with fields reflection cannot read"));
                }
                let var = self.fresh(class);
                if self.types.accessible(class) {
                    let t = source_name(class);
                    self.lines
                        .push(format!("{t} {var} = CarveSupport.allocate({t}.class);"));
                } else {
                    self.lines.push(format!(
                        "Object {var} = CarveSupport.allocate(CarveSupport.type({}));",
                        string_literal(class)
                    ));
                }
                self.vars.insert(*r, var.clone());
                for f in fields {
                    let value = self.expr(&f.value)?;
                    let declaring = f.declaring.as_deref().unwrap_or(class);
                    self.lines.push(format!(
                        "CarveSupport.set({var}, {}, {}, {value});",
                        string_literal(declaring),
                        string_literal(&f.name)
                    ));
                }
                Ok(var)
            }
            _ => Err("a value that cannot be rebuilt".into()),
        }
    }
}

/// The number of the object a value is (arrays and objects), if any.
fn number(v: &Value) -> Option<u32> {
    match v {
        Value::Array { r, .. }
        | Value::Object { r, .. }
        | Value::BackRef { r }
        | Value::Ref { r, .. }
        | Value::Text { r, .. }
        | Value::Collection { r, .. }
        | Value::Map { r, .. }
        | Value::Opaque { r, .. } => Some(*r),
        _ => None,
    }
}

/// The class of object `r` wherever a snapshot of the call shows it.
fn class_of(c: &CallRecord, r: u32) -> Option<String> {
    fn find(v: &Value, r: u32) -> Option<String> {
        match v {
            Value::Object {
                r: n,
                class,
                fields,
                ..
            } => {
                if *n == r {
                    return Some(class.clone());
                }
                fields.iter().find_map(|f| find(&f.value, r))
            }
            Value::Ref { r: n, class, .. }
            | Value::Opaque { r: n, class, .. }
            | Value::Text { r: n, class, .. } => (*n == r).then(|| class.clone()),
            Value::Array { items, .. } | Value::Collection { items, .. } => {
                items.iter().find_map(|i| find(i, r))
            }
            Value::Map { entries, .. } => entries
                .iter()
                .find_map(|(k, v)| find(k, r).or_else(|| find(v, r))),
            _ => None,
        }
    }
    let mut all: Vec<&Value> = vec![&c.receiver];
    all.extend(c.args.iter());
    for e in &c.events {
        if let Event::Call {
            outcome: Some(Outcome::Returned { value }),
            ..
        } = e
        {
            all.push(value);
        }
    }
    all.into_iter().find_map(|v| find(v, r))
}

/// The test body of call `c` of method `m`; `targets` and `fields` give the meaning of the
/// record's ids. With `environment`, the body sets up the clock, randomness, files and console
/// input the call read (the test class installs the controlled environment); without, they are
/// left to the machine.
#[allow(clippy::many_single_char_names)]
pub fn carve_call(
    c: &CallRecord,
    m: &RecordedMethod,
    private: bool,
    targets: &[CallTarget],
    fields: &[StaticField],
    types: &dyn Types,
    environment: bool,
) -> Carved {
    // A record with a value cut by a limit is carved all the same: a cut value the test needs
    // (a reference past the depth, a shortened array or collection) stops the carving below
    // with its reason, and a cut the record cannot show (a shortened string) makes the test
    // fail its validation; cuts in what is only checked loosely (arguments of the calls on
    // mocks, the state after) cost nothing.
    let class = m.class.replace('/', ".");
    if !types.accessible(&class) {
        return Err(format!("{class} cannot be named by a test"));
    }
    // Interactions past the event limit were not recorded: mocks would run out of answers
    // (repeating the last one, which can keep a loop going for ever) and the verification of
    // the recorded interactions would fail.
    if c.events_cut {
        return Err("interactions past the recording's --max-events".into());
    }
    let desc = MethodDescriptor::parse(&m.descriptor).map_err(|e| e.to_string())?;
    let mut b = Builder {
        types,
        lines: Vec::new(),
        vars: HashMap::new(),
        // The names the test's own lines use.
        names: Scope::with_taken(["result", "thrown", "inOrder", "CarveSupport"]),
        mocks: BTreeMap::new(),
        collaborators: BTreeSet::new(),
        defs: HashMap::new(),
        shared: HashSet::new(),
        building: HashSet::new(),
        stand_ins: HashSet::new(),
    };
    index(&c.receiver, &mut b.defs, &mut b.shared);
    for a in &c.args {
        index(a, &mut b.defs, &mut b.shared);
    }
    // What the events, the outcome and the state after refer back to is shared too (their
    // definitions are not inputs the test builds).
    let mut elsewhere = HashMap::new();
    for e in &c.events {
        match e {
            Event::Call { args, outcome, .. } => {
                for a in args {
                    index(a, &mut elsewhere, &mut b.shared);
                }
                if let Some(Outcome::Returned { value }) = outcome {
                    index(value, &mut elsewhere, &mut b.shared);
                }
            }
            Event::StaticRead { value, .. } => index(value, &mut elsewhere, &mut b.shared),
            Event::Clock { .. }
            | Event::RandomDouble { .. }
            | Event::RandomSeed { .. }
            | Event::File { .. }
            | Event::FileAfter { .. }
            | Event::Console { .. } => {}
        }
    }
    if let Outcome::Returned { value } = &c.outcome {
        index(value, &mut elsewhere, &mut b.shared);
    }
    index(&c.after, &mut elsewhere, &mut b.shared);
    // Mocks first: every object with recorded calls.
    let mut calls: Vec<(u32, &CallTarget, &[Value], Option<&Outcome>)> = Vec::new();
    for e in &c.events {
        if let Event::Call {
            target,
            receiver,
            args,
            outcome,
        } = e
        {
            let t = targets
                .get(*target as usize)
                .ok_or_else(|| format!("unknown call target {target}"))?;
            calls.push((*receiver, t, args, outcome.as_ref()));
            b.collaborators.insert(*receiver);
        }
    }
    for &r in &b.collaborators.clone() {
        let runtime = class_of(c, r);
        let owners: BTreeSet<String> = calls
            .iter()
            .filter(|(x, ..)| *x == r)
            .map(|(_, t, ..)| t.owner.replace('/', "."))
            .collect();
        let chosen = runtime
            .iter()
            .find(|k| types.mockable(k))
            .cloned()
            .or_else(|| {
                (owners.len() == 1)
                    .then(|| owners.iter().next().cloned())
                    .flatten()
                    .filter(|o| types.mockable(o))
            })
            .ok_or_else(|| {
                format!(
                    "no mock can stand for a {}",
                    runtime.unwrap_or_else(|| owners
                        .iter()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", "))
                )
            })?;
        if let Some((_, t, ..)) = calls
            .iter()
            .find(|(x, t, ..)| *x == r && types.final_method(&chosen, &t.name, &t.descriptor))
        {
            return Err(format!(
                "a final method {}.{} no mock can answer",
                t.owner.replace('/', "."),
                t.name
            ));
        }
        let var = b.fresh(&chosen);
        let t = source_name(&chosen);
        b.lines.push(format!("{t} {var} = mock({t}.class);"));
        b.mocks.insert(r, var);
    }
    // The receiver and the arguments.
    let receiver = if m.is_static {
        None
    } else {
        Some(b.expr(&c.receiver)?)
    };
    let mut args = Vec::with_capacity(c.args.len());
    for (a, t) in c.args.iter().zip(&desc.params) {
        let e = b.expr(a)?;
        args.push(if t.is_reference() && e != "null" {
            format!("({}) {e}", java_type(t))
        } else {
            e
        });
    }
    if args.len() != desc.params.len() {
        return Err("the record's arguments do not match the descriptor".into());
    }
    // The stubs: per mock and method, the answers in order.
    let mut stubs: BTreeMap<(u32, String, String), Vec<Option<&Outcome>>> = BTreeMap::new();
    let mut order: Vec<(u32, String, String)> = Vec::new();
    for (r, t, _, outcome) in &calls {
        let key = (*r, t.name.clone(), t.descriptor.clone());
        if !stubs.contains_key(&key) {
            order.push(key.clone());
        }
        stubs.entry(key).or_default().push(*outcome);
    }
    for key in &order {
        let (r, name, descriptor) = key;
        let td = MethodDescriptor::parse(descriptor).map_err(|e| e.to_string())?;
        let mut chain = Vec::new();
        for o in &stubs[key] {
            chain.push(match o {
                None => return Err("a call on a collaborator whose end was lost".into()),
                Some(Outcome::Threw { exception }) => format!("doThrow({})", throwable(exception)),
                Some(Outcome::Returned { .. }) if td.ret.is_none() => "doNothing()".into(),
                Some(Outcome::Returned { value }) => format!("doReturn({})", b.expr(value)?),
            });
        }
        let matchers: Vec<&str> = td.params.iter().map(any_matcher).collect();
        b.lines.push(format!(
            "{}.when({}).{name}({});",
            chain.join("."),
            b.mocks[r],
            matchers.join(", ")
        ));
    }
    // Static state read by the call.
    let mut set_statics = BTreeSet::new();
    for e in &c.events {
        if let Event::StaticRead { field, value } = e {
            if !set_statics.insert(*field) {
                continue;
            }
            let f = fields
                .get(*field as usize)
                .ok_or_else(|| format!("unknown field {field}"))?;
            let v = b.expr(value)?;
            b.lines.push(format!(
                "CarveSupport.setStatic({}, {}, {v});",
                string_literal(&f.owner.replace('/', ".")),
                string_literal(&f.name)
            ));
        }
    }
    // The environment it read, when the test class controls it.
    if environment {
        b.lines.extend(super::environment::setup(&c.events)?);
    }
    // The call and its outcome.
    let target = match &receiver {
        Some(r) => r.clone(),
        None => source_name(&class),
    };
    // A private method is called by reflection (`CarveSupport.invoke` rethrows what it threw).
    let call = if private {
        let kinds: Vec<String> = desc.params.iter().map(class_literal).collect();
        format!(
            "CarveSupport.invoke({}, {}, {}, new Class<?>[] {{{}}}, new Object[] {{{}}})",
            receiver.as_deref().unwrap_or("null"),
            string_literal(&class),
            string_literal(&m.name),
            kinds.join(", "),
            args.join(", ")
        )
    } else {
        format!("{target}.{}({})", m.name, args.join(", "))
    };
    let name = match &c.outcome {
        Outcome::Threw { exception } => {
            b.lines.push(format!(
                "Throwable thrown = assertThrows(Throwable.class, () -> {call});"
            ));
            b.lines.push(format!(
                "assertEquals({}, thrown.getClass().getName());",
                string_literal(&exception.class)
            ));
            if let Some(msg) = &exception.message {
                b.lines.push(format!(
                    "assertEquals({}, thrown.getMessage());",
                    string_literal(msg)
                ));
            }
            format!("{}_throws{}", m.name, simple(&exception.class))
        }
        Outcome::Returned { value } => match &desc.ret {
            None => {
                b.lines.push(format!("{call};"));
                format!("{}_void", m.name)
            }
            Some(t) if private => {
                let declared = match t {
                    FieldType::Object(_) | FieldType::Array(_) => "Object".to_string(),
                    p => format!("{} result = ({})", java_type(p), boxed(p)),
                };
                if declared == "Object" {
                    b.lines.push(format!("Object result = {call};"));
                } else {
                    b.lines.push(format!("{declared} {call};"));
                }
                let what = check_result(&mut b, value, t, &c.receiver, &c.args);
                format!("{}_{what}", m.name)
            }
            Some(t) => {
                b.lines.push(format!("{} result = {call};", java_type(t)));
                let what = check_result(&mut b, value, t, &c.receiver, &c.args);
                format!("{}_{what}", m.name)
            }
        },
    };
    // The receiver's changed fields.
    if let (Some(rv), Value::Object { fields: before, .. }, Value::Object { fields: after, .. }) =
        (&receiver, &c.receiver, &c.after)
    {
        for f in after {
            let old = before
                .iter()
                .find(|o| o.name == f.name && o.declaring == f.declaring);
            if old.is_some_and(|o| o.value == f.value) {
                continue;
            }
            if let Some(l) = literal(&f.value) {
                let declaring = f.declaring.clone().unwrap_or_else(|| class.clone());
                b.lines.push(format!(
                    "assertEquals((Object) {l}, CarveSupport.get({rv}, {}, {}));",
                    string_literal(&declaring),
                    string_literal(&f.name)
                ));
            }
        }
    }
    // The files it wrote, created or deleted.
    if environment {
        b.lines.extend(super::environment::checks(&c.events));
    }
    // The calls on the mocks, in order.
    if !b.mocks.is_empty() {
        let all: Vec<String> = b.mocks.values().cloned().collect();
        b.lines
            .push(format!("InOrder inOrder = inOrder({});", all.join(", ")));
        // Consecutive equal calls are one check with their count: in-order verification of
        // `times(1)` takes the whole run of equal calls and fails on it.
        let mut checks: Vec<(String, String, usize)> = Vec::new();
        for (r, t, args, _) in &calls {
            let td = MethodDescriptor::parse(&t.descriptor).map_err(|e| e.to_string())?;
            let mut ms = Vec::new();
            for (a, p) in args.iter().zip(&td.params) {
                ms.push(match literal(a) {
                    Some(l) if l != "null" => format!("eq({l})"),
                    Some(_) => "isNull()".to_string(),
                    None => {
                        match number(a).and_then(|n| b.mocks.get(&n).or_else(|| b.vars.get(&n))) {
                            Some(v) => format!("same({v})"),
                            None => any_matcher(p).to_string(),
                        }
                    }
                });
            }
            let call = format!("{}({})", t.name, ms.join(", "));
            let mock = b.mocks[r].clone();
            match checks.last_mut() {
                Some((m, c, n)) if *m == mock && *c == call => *n += 1,
                _ => checks.push((mock, call, 1)),
            }
        }
        for (mock, call, n) in checks {
            if n == 1 {
                b.lines.push(format!("inOrder.verify({mock}).{call};"));
            } else {
                b.lines
                    .push(format!("inOrder.verify({mock}, times({n})).{call};"));
            }
        }
        b.lines
            .push(format!("verifyNoMoreInteractions({});", all.join(", ")));
    }
    let mocks = !b.mocks.is_empty() || !b.stand_ins.is_empty();
    Ok(Body {
        name,
        lines: b.lines,
        mocks,
        sets_statics: !set_statics.is_empty(),
    })
}

/// The simple name of a primitive type's box (`Object` for a reference).
fn boxed(t: &FieldType) -> &'static str {
    t.boxed_class()
        .map_or("Object", |c| c.trim_start_matches("java/lang/"))
}

/// The `Class` of a parameter type: `int.class`, else by its `Class.getName()`.
fn class_literal(t: &FieldType) -> String {
    match t {
        FieldType::Object(n) => format!(
            "CarveSupport.type({})",
            string_literal(&n.replace('/', "."))
        ),
        FieldType::Array(_) => format!(
            "CarveSupport.type({})",
            string_literal(&t.to_string().replace('/', "."))
        ),
        p => format!("{}.class", java_type(p)),
    }
}

fn simple(class: &str) -> String {
    class.rsplit(['.', '$']).next().unwrap_or(class).to_string()
}

fn throwable(t: &Thrown) -> String {
    format!(
        "CarveSupport.throwable({}, {})",
        string_literal(&t.class),
        t.message
            .as_deref()
            .map_or_else(|| "null".to_string(), string_literal)
    )
}

/// Adds the checks of a returned value; returns the test name's outcome part.
fn check_result(
    b: &mut Builder<'_>,
    value: &Value,
    t: &FieldType,
    receiver: &Value,
    args: &[Value],
) -> String {
    match (value, t) {
        (Value::Float { bits }, _) if f32::from_bits(*bits).is_nan() => {
            b.lines.push("assertTrue(Float.isNaN(result));".into());
            "returnsNaN".into()
        }
        (Value::Double { bits }, _) if f64::from_bits(*bits).is_nan() => {
            b.lines.push("assertTrue(Double.isNaN(result));".into());
            "returnsNaN".into()
        }
        (Value::Float { .. } | Value::Double { .. }, FieldType::Float | FieldType::Double) => {
            let l = literal(value).unwrap_or_default();
            b.lines.push(format!("assertEquals({l}, result, 0.0);"));
            format!("returns{}", name_part(&l))
        }
        (Value::Null, _) => {
            b.lines.push("assertNull(result);".into());
            "returnsNull".into()
        }
        (v, FieldType::Object(_) | FieldType::Array(_)) if literal(v).is_none() => {
            let n = number(v);
            if n.is_some() && n == number(receiver) {
                b.lines.push(format!(
                    "assertSame({}, result);",
                    b.vars.get(&n.unwrap_or(0)).cloned().unwrap_or_default()
                ));
                return "returnsItself".into();
            }
            for a in args {
                if n.is_some() && n == number(a) {
                    if let Some(var) = n.and_then(|n| b.vars.get(&n).or_else(|| b.mocks.get(&n))) {
                        b.lines.push(format!("assertSame({var}, result);"));
                        return "returnsArgument".into();
                    }
                }
            }
            // A mock the test made (a collaborator or a stand-in): the same object, whatever
            // class the mock maker gives it.
            let made = n.and_then(|n| {
                b.mocks
                    .get(&n)
                    .or_else(|| b.stand_ins.contains(&n).then(|| b.vars.get(&n)).flatten())
            });
            if let Some(var) = made {
                let var = var.clone();
                b.lines.push(format!("assertSame({var}, result);"));
                return format!("returns{}", upper_camel(&var));
            }
            match v {
                Value::Enum { class, name } => {
                    b.lines.push(format!(
                        "assertEquals({}, result.toString());",
                        string_literal(name)
                    ));
                    format!("returns{}", simple(class))
                }
                Value::Text { text, class, .. } if class != "java.util.Date" => {
                    b.lines.push(format!(
                        "assertEquals({}, result.toString());",
                        string_literal(text)
                    ));
                    format!("returns{}", simple(class))
                }
                _ => {
                    let class = match v {
                        Value::Object { class, .. }
                        | Value::Ref { class, .. }
                        | Value::Opaque { class, .. }
                        | Value::Collection { class, .. }
                        | Value::Map { class, .. }
                        | Value::Text { class, .. } => class.clone(),
                        Value::Array { component, .. } => format!("{component}[]"),
                        _ => String::new(),
                    };
                    b.lines.push("assertNotNull(result);".into());
                    if !class.ends_with("[]") {
                        b.lines.push(format!(
                            "assertEquals({}, result.getClass().getName());",
                            string_literal(&class)
                        ));
                    }
                    format!("returns{}", simple(&class).replace("[]", "Array"))
                }
            }
        }
        (v, _) => {
            let l = literal(v).unwrap_or_else(|| "null".into());
            b.lines.push(format!("assertEquals({l}, result);"));
            format!("returns{}", name_part(&l))
        }
    }
}

/// A literal as part of a test name (`150`, `true`, `Minus1`, `Apple`).
fn name_part(l: &str) -> String {
    let mut out = String::new();
    for (i, c) in l.trim_end_matches(['L', 'f', 'd']).chars().enumerate() {
        match c {
            '-' => out.push_str("Minus"),
            c if c.is_ascii_alphanumeric() => {
                if i == 0 || out.is_empty() {
                    out.push(c.to_ascii_uppercase());
                } else {
                    out.push(c);
                }
            }
            _ => {}
        }
        if out.len() >= 24 {
            break;
        }
    }
    if out.is_empty() { "Value".into() } else { out }
}

#[cfg(test)]
#[path = "body_tests.rs"]
mod tests;
