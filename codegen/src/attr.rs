//! The attribute's arguments: `schema = "name"` or `schema_path = "rel/path.toml"`, and
//! optionally `crate = "path"`.

use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::{LitStr, Path};

/// Where the schema comes from.
pub(crate) enum SchemaRef {
    /// `schema = "name"`: the crate's own `schemas/name.toml`, then the built-ins.
    Name(LitStr),
    /// `schema_path = "rel/path.toml"`: a file relative to `CARGO_MANIFEST_DIR`.
    Path(LitStr),
}

impl SchemaRef {
    pub(crate) fn lit(&self) -> &LitStr {
        match self {
            SchemaRef::Name(l) | SchemaRef::Path(l) => l,
        }
    }
}

pub(crate) struct Args {
    /// `None` for `dispatch`.
    pub schema: Option<SchemaRef>,
    /// The path to the `metalayer` crate in generated code.
    pub krate: Path,
}

pub(crate) fn parse(args: TokenStream) -> syn::Result<Args> {
    let mut schema: Option<SchemaRef> = None;
    let mut krate: Option<Path> = None;
    let mut dispatch = false;
    let parser = syn::meta::parser(|meta| {
        let set = |slot: &mut Option<SchemaRef>, value: SchemaRef| {
            if slot.is_some() {
                return Err(
                    meta.error("give the schema once: either `schema = \"name\"` or `schema_path = \"file.toml\"`")
                );
            }
            *slot = Some(value);
            Ok(())
        };
        if meta.path.is_ident("schema") {
            let lit: LitStr = meta.value()?.parse()?;
            set(&mut schema, SchemaRef::Name(lit))
        } else if meta.path.is_ident("schema_path") {
            let lit: LitStr = meta.value()?.parse()?;
            set(&mut schema, SchemaRef::Path(lit))
        } else if meta.path.is_ident("dispatch") {
            dispatch = true;
            Ok(())
        } else if meta.path.is_ident("crate") {
            let lit: LitStr = meta.value()?.parse()?;
            krate = Some(lit.parse()?);
            Ok(())
        } else {
            Err(meta.error(
                "unknown argument; expected `schema = \"name\"`, `schema_path = \"file.toml\"` or `crate = \"path\"`",
            ))
        }
    });
    parser.parse2(args.clone())?;
    let krate = krate.unwrap_or_else(|| syn::parse_quote!(::metalayer));
    if dispatch {
        if let Some(schema) = schema {
            return Err(syn::Error::new(
                schema.lit().span(),
                "`dispatch` takes no schema: each variant names its own with `#[metalayer(schema = \"...\")]`",
            ));
        }
        return Ok(Args { schema: None, krate });
    }
    let Some(schema) = schema else {
        return Err(syn::Error::new(
            proc_macro2::Span::call_site(),
            "missing schema: write `#[metalayer(schema = \"b2nd_v1\")]` or `#[metalayer(schema_path = \"schemas/x.toml\")]`",
        ));
    };
    Ok(Args {
        schema: Some(schema),
        krate,
    })
}
