//! A type a TypeScript declaration names ([`TsType`]): what `#[op]` and the derives list beside
//! each declaration, for [`crate::typescript_declarations`] to declare once. (Its makers from
//! a `FromV8` or `ToV8` type are with those traits, which name this file.)

/// A type an op's, a class's or a derived type's declaration names (`Entry` in
/// `function op_get(key: string): Entry;`), and where its own declaration is. `#[op]` and the
/// derives list these (as functions that make them: see [`TsTypes`]); the declarations file
/// declares each named type once.
#[derive(Clone, Copy)]
pub struct TsType {
    pub(crate) name: &'static str,
    pub(crate) form: TsForm,
    /// The declaration (`interface Entry { .. }`); empty for a type without one.
    pub(crate) declaration: &'static str,
    /// The types the declaration names in turn.
    pub(crate) names: TsTypes,
}

/// The types a declaration names, each as a function that makes it: functions, so that types
/// naming each other (`A` holds a `B` that holds `A`s) are no cycle of constants, and so that
/// the macros can name a type whose impl is missing without a second error (the conversion
/// reports it at the argument).
pub type TsTypes = &'static [fn() -> TsType];

/// How a named type is declared.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum TsForm {
    /// As JavaScript passes it (`FromV8`): where a type is passed and returned both, this
    /// looser form (optional fields, `undefined` for `None`) is declared.
    Input,
    /// As JavaScript gets it (`ToV8`).
    Output,
    /// A class (`#[cppgc]`): declared by its `ClassDecl`, or else as a class JavaScript can
    /// hold but not make.
    Class,
}

impl TsType {
    /// A class instance an op takes or returns (`#[cppgc] &Foo`).
    pub fn class(name: &'static str) -> Self {
        Self::new(name, TsForm::Class, "", &[])
    }

    /// A type whose impl is missing (its op or derive does not compile, and says why).
    pub(crate) fn missing(name: &'static str, input: bool) -> Self {
        let form = if input { TsForm::Input } else { TsForm::Output };
        Self::new(name, form, "", &[])
    }

    pub(crate) fn new(
        name: &'static str,
        form: TsForm,
        declaration: &'static str,
        names: TsTypes,
    ) -> Self {
        Self {
            name,
            form,
            declaration,
            names,
        }
    }
}
