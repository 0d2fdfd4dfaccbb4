//! A class's expansion: its members' ops, `Foo::CLASS` listing them, and the empty `Trace`
//! impl unless the class says `trace`. A pure function of the IR, as ops' is.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::{Class, Role};

/// The whole expansion of one class.
pub fn generate_class(class: &Class) -> TokenStream {
    let (item, class_ty, class_name) = (&class.item, &class.ty, &class.name);
    let ops = class
        .members
        .iter()
        .map(|member| super::generate(&member.op));
    let mut constructor = quote!(::std::option::Option::None);
    let mut member_decls = Vec::new();
    for member in &class.members {
        let op_ident = &member.op.item.sig.ident;
        let js_name = &member.js_name;
        let kind = match member.role {
            Role::Constructor => {
                constructor = quote!(::std::option::Option::Some(#op_ident::DECL));
                continue;
            }
            Role::Method => quote!(Method),
            Role::Getter => quote!(Getter),
            Role::Setter => quote!(Setter),
            Role::Static => quote!(Static),
        };
        member_decls.push(quote! {
            ::runtime_core::class::ClassMember {
                name: #js_name,
                kind: ::runtime_core::class::MemberKind::#kind,
                decl: #op_ident::DECL,
            }
        });
    }
    let typescript = crate::typegen::class_declaration(class);
    let typescript_types = super::ts_types(&crate::typegen::types_named_by_class(class));
    let base_const = class.base.as_ref().map(|base| {
        quote! {
            const BASE: ::std::option::Option<::runtime_core::class::Upcast> =
                ::std::option::Option::Some(::runtime_core::class::upcast::<#class_ty, #base>);
        }
    });
    // SAFETY (of the emitted impl): nothing is traced (the class says `trace` when it holds
    // traced references, and implements it), and `BASE` is the upcast to the declared base.
    let trace = (!class.traced)
        .then(|| quote!(unsafe impl ::runtime_core::Trace for #class_ty { #base_const }));
    let base_decl = match &class.base {
        Some(base) => quote!(::std::option::Option::Some(::std::any::TypeId::of::<#base>)),
        None => quote!(::std::option::Option::None),
    };
    let doc = format!(" The class declaration of `{class_name}`: register `{class_name}::CLASS` with `Extension::classes`.");
    quote! {
        #item

        #(#ops)*

        impl #class_ty {
            #[doc = #doc]
            pub const CLASS: ::runtime_core::ClassDecl = ::runtime_core::ClassDecl {
                name: #class_name,
                type_id: ::std::any::TypeId::of::<#class_ty>,
                constructor: #constructor,
                members: &[#(#member_decls),*],
                base: #base_decl,
                typescript: #typescript,
                typescript_types: #typescript_types,
            };
        }

        #trace
    }
}
