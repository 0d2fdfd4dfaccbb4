//! The contract with runtime_core, as types, made from the one list both crates include
//! (`runtime_core/src/__op/contract.rs`): the conversion markers generated code names
//! ([`Marker`]) and the runtime functions the strategies call by name ([`SlowHelper`],
//! [`FastHelper`]): the IR names a variant, and only `name()` spells it. Each helper is the
//! checked conversion of one argument kind in `runtime_core::__op`; the every-kind test
//! compiles a call of each (a test here checks the kind table reaches every variant).

/// Declares a helper enum: each variant with the function it names, `ALL`, and `name()`.
macro_rules! helpers {
    ($(#[$doc:meta])* $enum:ident { $($variant:ident => $function:ident,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $enum {
            $(#[doc = concat!("`", stringify!($function), "`.")] $variant,)*
        }

        impl $enum {
            /// Every helper.
            pub const ALL: &'static [$enum] = &[$($enum::$variant),*];

            /// The function's name.
            pub fn name(self) -> &'static str {
                match self {
                    $($enum::$variant => stringify!($function),)*
                }
            }
        }
    };
}

/// Reads the contract list both crates include (`runtime_core/src/__op/contract.rs`) into
/// [`Marker`], [`SlowHelper`] and [`FastHelper`].
macro_rules! op_contract {
    (
        $(#[$markers_doc:meta])*
        markers { $($(#[$doc:meta])* $marker:ident,)* }
        $(#[$slow_doc:meta])*
        slow_helpers { $($slow:ident => $slow_fn:ident,)* }
        $(#[$fast_doc:meta])*
        fast_helpers { $($fast:ident => $fast_fn:ident,)* }
    ) => {
        $(#[$markers_doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Marker {
            $($(#[$doc])* $marker,)*
        }

        impl Marker {
            /// Every marker, in the list's order.
            pub const ALL: &'static [Marker] = &[$(Marker::$marker),*];

            /// The marker type's name in `runtime_core::__op::kind`.
            pub fn name(self) -> &'static str {
                match self {
                    $(Marker::$marker => stringify!($marker),)*
                }
            }
        }

        helpers! {
            $(#[$slow_doc])*
            SlowHelper { $($slow => $slow_fn,)* }
        }

        helpers! {
            $(#[$fast_doc])*
            FastHelper { $($fast => $fast_fn,)* }
        }
    };
}

include!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../runtime_core/src/__op/contract.rs"
));

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{ArgKind, FastArg, FastConvert, SlowArg};

    /// Every helper is some kind's strategy, so the every-kind test (generated from the
    /// table's examples) compiles a call of each against runtime_core.
    #[test]
    fn the_kind_table_reaches_every_helper() {
        let mut slow = Vec::new();
        let mut fast = Vec::new();
        for kind in ArgKind::examples() {
            match kind.slow() {
                SlowArg::Convert { helper }
                | SlowArg::Lent { helper }
                | SlowArg::WithStorage { helper }
                | SlowArg::FromSource { helper, .. } => slow.push(helper),
                SlowArg::Buffered { in_place, copied } => slow.extend([in_place, copied]),
                _ => {}
            }
            if let FastArg::Param {
                convert:
                    FastConvert::Helper { name, .. }
                    | FastConvert::Checked { name }
                    | FastConvert::CheckedWithStorage { name }
                    | FastConvert::CheckedWithSource { name, .. },
                ..
            } = kind.fast()
            {
                fast.push(name);
            }
        }
        for helper in SlowHelper::ALL {
            assert!(
                slow.contains(helper),
                "no kind calls SlowCall::{}",
                helper.name()
            );
        }
        for helper in FastHelper::ALL {
            assert!(
                fast.contains(helper),
                "no kind calls __op::{}",
                helper.name()
            );
        }
    }
}
