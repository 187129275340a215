//! Class literals for `Class` parameters: which of the cluster's candidates fit a parameter's
//! generic type.
//!
//! A parameter declared `Class<?>` (or raw `Class`) takes any candidate; `Class<? extends
//! Number>` one whose class is a `Number`; `Class<E>` with `<E extends Enum<E>>` an enum;
//! `Class<Foo>` and `Class<? super Foo>` only `Foo.class`. A type variable the method does not
//! declare (the class's own, bound by a receiver) is taken as unbounded: the test's generic
//! typing, and validation's raw fallback, decide how it is written.
//!
//! ```text
//! <T> T createValue(String s, Class<T> c)         → String.class, File[].class, int.class, …
//! <E extends Enum<E>> E getEnum(Class<E> c, …)    → TimeUnit.class (an enum among the candidates)
//! boolean isAssignable(Class<? extends Number> c) → Integer.class, Number.class
//! ```

use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_testcase::cluster::{ClassLiteral, GenericType, TypeArg, TypeParameter, TypeUse};
use ferrosuite_testcase::statement::{CLASS, Statement};

use super::{Call, Factory, OBJECT};

/// What a `Class` parameter accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Bound {
    /// Any class literal.
    Any,
    /// A class literal of a subtype of the class (internal name).
    Within(String),
    /// Only the literal of the class.
    Exactly(String),
    /// No literal (an array type argument, say).
    Nothing,
}

impl Bound {
    /// Whether `lit` fits.
    pub(crate) fn admits(&self, lit: &ClassLiteral) -> bool {
        match self {
            Bound::Any => true,
            Bound::Within(b) => lit.within(b),
            Bound::Exactly(c) => lit.is_of(c),
            Bound::Nothing => false,
        }
    }
}

/// The bound of a parameter used as `u`, whose type variables are declared in `scope`
/// (`None`: the parameter is not a `Class`).
pub(crate) fn class_bound(u: &TypeUse, scope: &[&[TypeParameter]]) -> Option<Bound> {
    if !matches!(&u.ty, FieldType::Object(n) if n == CLASS) {
        return None;
    }
    let Some(GenericType::Class(c)) = &u.generic else {
        return Some(Bound::Any);
    };
    let Some(arg) = c.last_args().first() else {
        return Some(Bound::Any);
    };
    let variable_bound = |v: &str| -> Bound {
        let p = scope.iter().flat_map(|s| s.iter()).find(|p| p.name == v);
        match p
            .and_then(TypeParameter::bound)
            .and_then(GenericType::class_name)
        {
            Some(b) if b != OBJECT => Bound::Within(b),
            _ => Bound::Any,
        }
    };
    Some(match arg {
        TypeArg::Any => Bound::Any,
        TypeArg::Exact(GenericType::Class(t)) | TypeArg::Super(GenericType::Class(t)) => {
            Bound::Exactly(t.erasure())
        }
        TypeArg::Extends(GenericType::Class(t)) => match t.erasure() {
            b if b == OBJECT => Bound::Any,
            b => Bound::Within(b),
        },
        TypeArg::Exact(GenericType::Variable(v)) | TypeArg::Extends(GenericType::Variable(v)) => {
            variable_bound(v)
        }
        _ => Bound::Nothing,
    })
}

impl<'a> Factory<'a> {
    /// The class literals that fit parameter `k` of `call` (empty when it is not a `Class`
    /// or none fits).
    pub(crate) fn class_literals_for(&self, call: Call<'a>, k: usize) -> Vec<&'a ClassLiteral> {
        let op = call.operation();
        let u = match call {
            Call::Op(op) => op.params.get(k),
            Call::Write(op) => op.ret.as_ref().filter(|_| k == 0),
        };
        let cluster = self.cluster;
        let class_params: &[TypeParameter] = if *op.class == *cluster.cut {
            &cluster.type_params
        } else {
            &[]
        };
        let Some(bound) = u.and_then(|u| class_bound(u, &[&op.type_params, class_params])) else {
            return Vec::new();
        };
        cluster
            .class_literals
            .iter()
            .filter(|l| bound.admits(l))
            .collect()
    }

    /// The class literals that fit every use of value `i` of `stmts` as an argument of a
    /// cluster call (other uses take any literal): what a class literal there may become.
    pub(crate) fn class_literals_for_uses(
        &self,
        stmts: &[Statement],
        i: usize,
    ) -> Vec<&'a ClassLiteral> {
        let mut fitting: Vec<&'a ClassLiteral> = self.cluster.class_literals.iter().collect();
        for s in stmts.iter().skip(i + 1) {
            let args: &[_] = match s.unwrapped() {
                Statement::Constructor { args, .. } | Statement::Method { args, .. } => args,
                Statement::FieldWrite { value, .. } => std::slice::from_ref(value),
                _ => continue,
            };
            let positions: Vec<usize> = (0..args.len()).filter(|&k| args[k].index() == i).collect();
            if positions.is_empty() {
                continue;
            }
            let Some(call) = self.call_for(s) else {
                continue;
            };
            for k in positions {
                let here = self.class_literals_for(call, k);
                fitting.retain(|l| here.iter().any(|h| h.ty == l.ty));
            }
        }
        fitting
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use ferrosuite_testcase::cluster::ClassType;

    fn class(name: &str) -> GenericType {
        GenericType::Class(ClassType {
            name: name.into(),
            args: Vec::new(),
            inner: Vec::new(),
        })
    }

    fn class_of(arg: TypeArg) -> TypeUse {
        TypeUse {
            ty: FieldType::Object(CLASS.into()),
            generic: Some(GenericType::Class(ClassType {
                name: CLASS.into(),
                args: vec![arg],
                inner: Vec::new(),
            })),
            type_args: Vec::new(),
            erased_generic: false,
        }
    }

    fn literal(ty: FieldType, supertypes: &[&str]) -> ClassLiteral {
        ClassLiteral {
            ty,
            supertypes: supertypes.iter().map(|s| (*s).to_string()).collect(),
        }
    }

    #[test]
    fn a_parameter_s_generic_type_decides_which_literals_fit() {
        let integer = literal(
            FieldType::Object("java/lang/Integer".into()),
            &["java/lang/Integer", "java/lang/Number", OBJECT],
        );
        let int = literal(FieldType::Int, &["java/lang/Integer", "java/lang/Number"]);
        let unit = literal(
            FieldType::Object("java/util/concurrent/TimeUnit".into()),
            &["java/util/concurrent/TimeUnit", "java/lang/Enum", OBJECT],
        );
        let enum_param = TypeParameter {
            name: "E".into(),
            class_bound: Some(class("java/lang/Enum")),
            interface_bounds: Vec::new(),
        };
        let free = TypeParameter {
            name: "T".into(),
            class_bound: Some(class(OBJECT)),
            interface_bounds: Vec::new(),
        };
        let scope: &[&[TypeParameter]] = &[&[enum_param, free]];
        let bound = |arg| class_bound(&class_of(arg), scope).unwrap();

        let e = bound(TypeArg::Exact(GenericType::Variable("E".into())));
        assert_eq!(e, Bound::Within("java/lang/Enum".into()));
        assert!(e.admits(&unit) && !e.admits(&integer));
        let t = bound(TypeArg::Exact(GenericType::Variable("T".into())));
        assert_eq!(t, Bound::Any);
        let number = bound(TypeArg::Extends(class("java/lang/Number")));
        assert!(number.admits(&integer) && number.admits(&int) && !number.admits(&unit));
        let exactly = bound(TypeArg::Exact(class("java/lang/Integer")));
        assert!(exactly.admits(&integer) && exactly.admits(&int) && !exactly.admits(&unit));
        assert_eq!(
            bound(TypeArg::Exact(GenericType::Array(Box::new(class(OBJECT))))),
            Bound::Nothing
        );
        assert_eq!(bound(TypeArg::Any), Bound::Any);
        // A raw `Class` takes anything; a parameter of another type is not asked.
        let raw = TypeUse::plain(FieldType::Object(CLASS.into()));
        assert_eq!(class_bound(&raw, scope), Some(Bound::Any));
        let list = TypeUse::plain(FieldType::Object("java/util/List".into()));
        assert_eq!(class_bound(&list, scope), None);
    }
}
