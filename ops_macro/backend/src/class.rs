//! `#[op] impl Foo { .. }`: a JavaScript class (as deno's `#[op2] impl`). Each member becomes an
//! op through the same pipeline as free ops (a hidden function `__Foo_<member>` whose first
//! argument is the receiver, `#[this] &Foo`), so conversions, errors, panics and the fast path
//! are those of ops; then `Foo::CLASS` lists them for `Extension::classes`.
//!
//! Members: `#[constructor]` (`new Foo(..)`; returns `Foo`), methods (`&self`), `#[getter]`,
//! `#[setter]`, `#[static_method]` (or any function without a receiver), with `#[fast]` /
//! `#[nofast]` and `#[rename("name")]`. `&mut self` is refused: an instance is shared with
//! JavaScript, which may hold any number of references and re-enter a method.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

use crate::internals::attr::is_marker;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Constructor,
    Method,
    Getter,
    Setter,
    Static,
}

/// One member, parsed.
struct Member {
    role: Role,
    /// The Rust method (as emitted in the impl block).
    rust_name: syn::Ident,
    /// The JavaScript property name.
    js_name: String,
    /// `fast` / `nofast` for the op attribute.
    op_options: TokenStream,
    /// The hidden op function's parts: markers, generics, arguments, output, call arguments,
    /// whether it is `async`.
    fn_markers: Vec<syn::Attribute>,
    is_async: bool,
    generics: syn::Generics,
    inputs: Vec<syn::FnArg>,
    output: syn::ReturnType,
    call_args: Vec<TokenStream>,
    span: Span,
}

impl Role {
    /// In the hidden op's name (`__Foo_get_x`): members of different roles may share a name.
    fn prefix(self) -> &'static str {
        match self {
            Role::Constructor => "new",
            Role::Method => "method",
            Role::Getter => "get",
            Role::Setter => "set",
            Role::Static => "static",
        }
    }
}

impl Member {
    /// The hidden op: `fn __Foo_<role>_<name>(#[this] this: &Foo, args..) -> ret { Foo::<name>(this, args..) }`.
    fn op_fn(&self, class: &syn::Ident, class_ty: &syn::Type) -> syn::ItemFn {
        let op_ident = format_ident!("__{}_{}_{}", class, self.role.prefix(), self.rust_name);
        let rust_name = &self.rust_name;
        let (fn_markers, generics, inputs, output, call_args) = (
            &self.fn_markers,
            &self.generics,
            &self.inputs,
            &self.output,
            &self.call_args,
        );
        let asyncness = self.is_async.then(|| quote!(async));
        let await_ = self.is_async.then(|| quote!(.await));
        syn::parse_quote_spanned! {self.span=>
            #(#fn_markers)*
            #[doc(hidden)]
            #[allow(non_snake_case)]
            #asyncness fn #op_ident #generics(#(#inputs),*) #output {
                #class_ty::#rust_name(#(#call_args),*) #await_
            }
        }
    }
}

/// Replaces `Self` in types with the class's own type (the hidden op functions are free).
struct ReplaceSelf<'a>(&'a syn::Type);

impl VisitMut for ReplaceSelf<'_> {
    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        if let syn::Type::Path(path) = ty {
            if path.qself.is_none() && path.path.is_ident("Self") {
                *ty = self.0.clone();
                return;
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

/// The member's own attributes (`#[constructor]`, `#[fast]`, ...), taken off the method.
const MEMBER_ATTRIBUTES: &[&str] = &[
    "constructor",
    "getter",
    "setter",
    "static_method",
    "fast",
    "nofast",
    "rename",
    "required",
    "varargs",
    "validate",
];

fn rename_of(attr: &syn::Attribute) -> syn::Result<String> {
    match &attr.meta {
        syn::Meta::List(list) => Ok(list.parse_args::<syn::LitStr>()?.value()),
        syn::Meta::NameValue(pair) => match &pair.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(name),
                ..
            }) => Ok(name.value()),
            other => Err(syn::Error::new_spanned(
                other,
                "expected `rename(\"name\")`",
            )),
        },
        syn::Meta::Path(path) => Err(syn::Error::new_spanned(path, "expected `rename(\"name\")`")),
    }
}

fn parse_member(
    class_ty: &syn::Type,
    method: &mut syn::ImplItemFn,
    errors: &mut Vec<syn::Error>,
) -> Option<Member> {
    let mut role = None;
    let mut op_options = TokenStream::new();
    let mut required = None;
    let mut js_name = method.sig.ident.to_string();
    let mut fn_markers = Vec::new();
    for attr in &method.attrs {
        let path = attr.path();
        let set_role = |role_slot: &mut Option<Role>, new: Role, errors: &mut Vec<syn::Error>| {
            if role_slot.replace(new).is_some() {
                errors.push(syn::Error::new_spanned(
                    attr,
                    "a member is one of `#[constructor]`, `#[getter]`, `#[setter]`, `#[static_method]`",
                ));
            }
        };
        if path.is_ident("constructor") {
            set_role(&mut role, Role::Constructor, errors);
        } else if path.is_ident("getter") {
            set_role(&mut role, Role::Getter, errors);
        } else if path.is_ident("setter") {
            set_role(&mut role, Role::Setter, errors);
        } else if path.is_ident("static_method") {
            set_role(&mut role, Role::Static, errors);
        } else if path.is_ident("fast") {
            op_options = quote!(fast);
        } else if path.is_ident("nofast") {
            op_options = quote!(nofast);
        } else if path.is_ident("rename") {
            match rename_of(attr) {
                Ok(name) => js_name = name,
                Err(error) => errors.push(error),
            }
        } else if is_marker(attr) || path.is_ident("doc") {
            // Markers of the return value, and the doc comment (the TypeScript JSDoc).
            fn_markers.push(attr.clone());
        } else if path.is_ident("required") {
            // deno's object_wrap `#[required(n)]`: the op option of the same name.
            match attr.parse_args::<syn::LitInt>() {
                Ok(n) => required = Some(n),
                Err(_) => errors.push(syn::Error::new_spanned(
                    attr,
                    "`#[required(n)]` takes how many arguments a call must pass: `#[required(1)]`",
                )),
            }
        } else if path.is_ident("varargs") {
            errors.push(syn::Error::new_spanned(
                attr,
                "`#[varargs]` is not supported: take the arguments JavaScript may pass as \
                 `Option<T>`s, or one `v8::Local<v8::Value>` (an array of them) and read it",
            ));
        } else if path.is_ident("validate") {
            errors.push(syn::Error::new_spanned(
                attr,
                "`#[validate(f)]` is not supported: call `f` first in the method and return \
                 `Err(OpError::type_error(..))` when it refuses",
            ));
        }
    }
    method.attrs.retain(|attr| {
        !MEMBER_ATTRIBUTES
            .iter()
            .any(|name| attr.path().is_ident(name))
            && !is_marker(attr)
    });
    let sig = method.sig.clone();
    // (Markers on its arguments stay on the hidden op's, and leave the method below.)
    if !sig
        .generics
        .params
        .iter()
        .all(|param| matches!(param, syn::GenericParam::Lifetime(_)))
    {
        errors.push(syn::Error::new_spanned(
            &sig.generics,
            "a class member cannot be generic: JavaScript calls one function per member",
        ));
        return None;
    }
    let receiver = sig.receiver();
    if let Some(receiver) = receiver {
        if receiver.reference.is_none() {
            errors.push(syn::Error::new_spanned(
                receiver,
                "an instance cannot be moved out of JavaScript: take `&self`",
            ));
            return None;
        }
        if receiver.mutability.is_some() {
            errors.push(syn::Error::new_spanned(
                receiver,
                "`&mut self` is refused: an instance is shared with JavaScript (any number of references, and calls that re-enter), so take `&self` and keep mutable state in `Cell`/`RefCell` fields",
            ));
            return None;
        }
    }
    let role = match (role, receiver.is_some()) {
        (Some(Role::Constructor | Role::Static), true) => {
            errors.push(syn::Error::new_spanned(
                receiver,
                "a constructor or static method has no receiver: remove `&self`",
            ));
            return None;
        }
        (Some(role @ (Role::Getter | Role::Setter)), false) => {
            errors.push(syn::Error::new_spanned(
                &sig.ident,
                if role == Role::Getter {
                    "a getter takes `&self`"
                } else {
                    "a setter takes `&self` and the value"
                },
            ));
            return None;
        }
        (Some(role), _) => role,
        (None, true) => Role::Method,
        (None, false) => Role::Static,
    };
    // The hidden op: `fn __Foo_x(#[this] this: &Foo, args..) -> ret { Foo::x(this, args..) }`.
    let mut inputs: Vec<syn::FnArg> = Vec::new();
    let mut call_args: Vec<TokenStream> = Vec::new();
    let this = format_ident!("__this");
    let is_async = sig.asyncness.is_some();
    if receiver.is_some() {
        if is_async {
            // Held for the method's future, which borrows it across awaits.
            inputs.push(syn::parse_quote!(#[this] #this: ::runtime_core::class::Held<#class_ty>));
            call_args.push(quote!(&#this));
        } else {
            inputs.push(syn::parse_quote!(#[this] #this: &#class_ty));
            call_args.push(quote!(#this));
        }
    }
    for input in sig
        .inputs
        .iter()
        .filter(|input| matches!(input, syn::FnArg::Typed(_)))
    {
        let syn::FnArg::Typed(typed) = input else {
            unreachable!("filtered")
        };
        let syn::Pat::Ident(pat) = &*typed.pat else {
            errors.push(syn::Error::new_spanned(
                &typed.pat,
                "a class member's arguments are plain names (`name: Type`)",
            ));
            return None;
        };
        let ident = &pat.ident;
        let mut typed = typed.clone();
        ReplaceSelf(class_ty).visit_type_mut(&mut typed.ty);
        call_args.push(quote!(#ident));
        inputs.push(syn::FnArg::Typed(typed));
    }
    // Markers on the method's arguments stay on the hidden op's; strip them from the method.
    for input in method.sig.inputs.iter_mut() {
        if let syn::FnArg::Typed(typed) = input {
            typed.attrs.retain(|attr| !is_marker(attr));
        }
    }
    let mut output = sig.output.clone();
    if let syn::ReturnType::Type(_, ty) = &mut output {
        ReplaceSelf(class_ty).visit_type_mut(ty);
    }
    if role == Role::Constructor && !fn_markers.iter().any(|attr| attr.path().is_ident("cppgc")) {
        fn_markers.push(syn::parse_quote!(#[cppgc]));
    }
    if let Some(n) = required {
        op_options = if op_options.is_empty() {
            quote!(required(#n))
        } else {
            quote!(#op_options, required(#n))
        };
    }
    Some(Member {
        role,
        rust_name: sig.ident.clone(),
        js_name,
        op_options,
        fn_markers,
        generics: sig.generics.clone(),
        inputs,
        output,
        call_args,
        is_async,
        span: sig.span(),
    })
}

/// Expands `#[op(<attr>)] impl ...`.
pub fn expand_class(
    attr: TokenStream,
    item: syn::ItemImpl,
) -> Result<TokenStream, Vec<syn::Error>> {
    build(attr, item).map(|(tokens, _)| tokens)
}

/// The class's TypeScript declaration (`class Foo { .. }`), as `Foo::CLASS.typescript` holds it:
/// what `cargo xtask dts` writes for an `#[op] impl`.
pub fn class_typescript(attr: TokenStream, item: syn::ItemImpl) -> Result<String, Vec<syn::Error>> {
    build(attr, item).map(|(_, typescript)| typescript)
}

/// The expansion and the TypeScript declaration.
fn build(
    attr: TokenStream,
    mut item: syn::ItemImpl,
) -> Result<(TokenStream, String), Vec<syn::Error>> {
    let mut errors = Vec::new();
    // `trace` (the type implements `Trace` itself), `inherit = Base`, and deno's `base`.
    let mut traced = false;
    let mut base: Option<syn::Type> = None;
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("trace") {
            traced = true;
        } else if meta.path.is_ident("inherit") {
            base = Some(meta.value()?.parse()?);
        } else if !meta.path.is_ident("base") {
            return Err(meta.error(
                "`#[op]` on an impl takes `trace` (the type implements `runtime_core::Trace` itself) and `inherit = Base`",
            ));
        }
        Ok(())
    });
    if let Err(error) = syn::parse::Parser::parse2(parser, attr) {
        errors.push(error);
    }
    if let Some((_, path, _)) = &item.trait_ {
        return Err(vec![syn::Error::new_spanned(
            path,
            "`#[op]` makes a class of an inherent `impl Foo { .. }`, not of a trait impl",
        )]);
    }
    if !item.generics.params.is_empty() {
        return Err(vec![syn::Error::new_spanned(
            &item.generics,
            "a class is one concrete type: `#[op]` does not take generic impls (make one impl per type)",
        )]);
    }
    let class_ty = (*item.self_ty).clone();
    let class = match &class_ty {
        syn::Type::Path(path) if path.qself.is_none() => {
            path.path.segments.last().map(|last| last.ident.clone())
        }
        _ => None,
    };
    let Some(class) = class else {
        return Err(vec![syn::Error::new_spanned(
            &class_ty,
            "`#[op] impl` takes a named type",
        )]);
    };
    let mut members = Vec::new();
    let mut names_seen: Vec<(String, Role)> = Vec::new();
    for impl_item in item.items.iter_mut() {
        let syn::ImplItem::Fn(method) = impl_item else {
            continue;
        };
        let Some(mut member) = parse_member(&class_ty, method, &mut errors) else {
            continue;
        };
        // deno lets a getter and a setter (or a static and a method) share a Rust name; Rust
        // does not: the second is emitted as `set_<name>` / `<name>_static`.
        let rust_name = method.sig.ident.to_string();
        if names_seen.iter().any(|(name, _)| *name == rust_name) {
            let renamed = match member.role {
                Role::Setter => format_ident!("set_{}", method.sig.ident),
                _ => format_ident!("{}_{}", method.sig.ident, "static"),
            };
            method.sig.ident = renamed;
        }
        names_seen.push((rust_name, member.role));
        // The hidden op calls the method by its emitted name.
        member.rust_name = method.sig.ident.clone();
        members.push(member);
    }
    let constructors = members
        .iter()
        .filter(|member| member.role == Role::Constructor)
        .count();
    if constructors > 1 {
        errors.push(syn::Error::new(
            Span::call_site(),
            "a class has one `#[constructor]`",
        ));
    }
    let class_name = class.to_string();
    let mut ops = Vec::new();
    let mut member_decls = Vec::new();
    let mut constructor = quote!(::std::option::Option::None);
    let extends = base
        .as_ref()
        .and_then(|base| match base {
            syn::Type::Path(path) => path
                .path
                .segments
                .last()
                .map(|last| format!(" extends {}", last.ident)),
            _ => None,
        })
        .unwrap_or_default();
    let mut typescript = format!("class {class_name}{extends} {{\n");
    if !members
        .iter()
        .any(|member| member.role == Role::Constructor)
    {
        // Not constructible from JavaScript (`new` throws): instances come from ops (protected,
        // not private: another class may extend it).
        typescript.push_str("  protected constructor();\n");
    }
    for member in &members {
        let op_fn = member.op_fn(&class, &class_ty);
        let mut op = match crate::parse_op(member.op_options.clone(), &op_fn) {
            Ok(op) => op,
            Err(op_errors) => {
                errors.extend(op_errors);
                continue;
            }
        };
        let js_name = &member.js_name;
        op.js_name = Some(match member.role {
            Role::Constructor => format!("new {class_name}"),
            Role::Method => format!("{class_name}.prototype.{js_name}"),
            Role::Getter => format!("get {class_name}.prototype.{js_name}"),
            Role::Setter => format!("set {class_name}.prototype.{js_name}"),
            Role::Static => format!("{class_name}.{js_name}"),
        });
        let member_ts = match member.role {
            Role::Constructor => crate::typegen::class_member(&op, "constructor", false),
            Role::Method => crate::typegen::class_member(&op, js_name, true),
            Role::Getter => crate::typegen::class_member(&op, &format!("get {js_name}"), true),
            Role::Setter => crate::typegen::class_member(&op, &format!("set {js_name}"), false),
            Role::Static => crate::typegen::class_member(&op, &format!("static {js_name}"), true),
        };
        for line in member_ts.lines() {
            typescript.push_str(&format!("  {line}\n"));
        }
        ops.push(crate::codegen::generate(&op));
        let op_ident = &op_fn.sig.ident;
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
            ::runtime_core::ClassMember {
                name: #js_name,
                kind: ::runtime_core::MemberKind::#kind,
                decl: #op_ident::DECL,
            }
        });
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    typescript.push_str("}\n");
    let base_const = base.as_ref().map(|base| {
        quote! {
            const BASE: ::std::option::Option<::runtime_core::class::Upcast> =
                ::std::option::Option::Some(::runtime_core::class::upcast::<#class_ty, #base>);
        }
    });
    // SAFETY (of the emitted impl): nothing is traced (the class says `trace` when it holds
    // traced references, and implements it), and `BASE` is the upcast to the declared base.
    let trace =
        (!traced).then(|| quote!(unsafe impl ::runtime_core::Trace for #class_ty { #base_const }));
    let base_decl = match &base {
        Some(base) => quote!(::std::option::Option::Some(::std::any::TypeId::of::<#base>)),
        None => quote!(::std::option::Option::None),
    };
    let doc = format!(" The class declaration of `{class_name}`: register `{class_name}::CLASS` with `Extension::classes`.");
    let tokens = quote! {
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
            };
        }

        #trace
    };
    Ok((tokens, typescript))
}

/// Takes this macro's attributes off an impl's methods and their arguments (what is emitted
/// beside the errors when the class does not expand).
pub fn strip_member_attributes(item: &mut syn::ItemImpl) {
    for impl_item in item.items.iter_mut() {
        if let syn::ImplItem::Fn(method) = impl_item {
            method.attrs.retain(|attr| {
                !MEMBER_ATTRIBUTES
                    .iter()
                    .any(|name| attr.path().is_ident(name))
                    && !is_marker(attr)
            });
            for input in method.sig.inputs.iter_mut() {
                if let syn::FnArg::Typed(typed) = input {
                    typed.attrs.retain(|attr| !is_marker(attr));
                }
            }
        }
    }
}
