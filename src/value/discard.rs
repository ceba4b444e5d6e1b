//! A serializer that writes nothing: a view serialized into it walks (and so checks) all its
//! bytes, which is how a view is checked before anything is written.

#[allow(unused_imports)]
use crate::std_prelude::*;

use std::fmt;

use serde::ser::{self, Serialize};

/// Serializes into nothing; `collect_str` still formats its value, whose `Display` may walk
/// bytes.
pub(crate) struct Discard;

/// The error a walk stops with; what went wrong is kept by the view.
#[derive(Debug)]
pub(crate) struct Stopped;

impl fmt::Display for Stopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("stopped")
    }
}

impl std::error::Error for Stopped {}

impl ser::Error for Stopped {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Stopped
    }
}

/// A `fmt::Write` that keeps nothing.
struct Sink;

impl fmt::Write for Sink {
    fn write_str(&mut self, _: &str) -> fmt::Result {
        Ok(())
    }
}

macro_rules! scalars {
    ($($method:ident: $ty:ty),* $(,)?) => {
        $(fn $method(self, _: $ty) -> Result<(), Stopped> { Ok(()) })*
    };
}

impl ser::Serializer for Discard {
    type Ok = ();
    type Error = Stopped;
    type SerializeSeq = Discard;
    type SerializeTuple = Discard;
    type SerializeTupleStruct = Discard;
    type SerializeTupleVariant = Discard;
    type SerializeMap = Discard;
    type SerializeStruct = Discard;
    type SerializeStructVariant = Discard;

    scalars!(
        serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_i128: i128, serialize_u8: u8, serialize_u16: u16,
        serialize_u32: u32, serialize_u64: u64, serialize_u128: u128, serialize_f32: f32,
        serialize_f64: f64, serialize_char: char, serialize_str: &str, serialize_bytes: &[u8],
        serialize_unit_struct: &'static str,
    );

    fn serialize_none(self) -> Result<(), Stopped> {
        Ok(())
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<(), Stopped> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Stopped> {
        Ok(())
    }

    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), Stopped> {
        Ok(())
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, value: &T) -> Result<(), Stopped> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        value: &T,
    ) -> Result<(), Stopped> {
        value.serialize(self)
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Discard, Stopped> {
        Ok(Discard)
    }

    fn serialize_tuple(self, _: usize) -> Result<Discard, Stopped> {
        Ok(Discard)
    }

    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Discard, Stopped> {
        Ok(Discard)
    }

    fn serialize_tuple_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Discard, Stopped> {
        Ok(Discard)
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Discard, Stopped> {
        Ok(Discard)
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Discard, Stopped> {
        Ok(Discard)
    }

    fn serialize_struct_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Discard, Stopped> {
        Ok(Discard)
    }

    fn collect_str<T: ?Sized + fmt::Display>(self, value: &T) -> Result<(), Stopped> {
        fmt::write(&mut Sink, format_args!("{value}")).map_err(|_| Stopped)
    }
}

/// The compound serializers, each discarding what it is given.
macro_rules! compounds {
    ($($trait:ident::$method:ident($($name:ident: $ty:ty),*)),* $(,)?) => {
        $(
            impl ser::$trait for Discard {
                type Ok = ();
                type Error = Stopped;

                fn $method<T: ?Sized + Serialize>(&mut self, $($name: $ty,)* value: &T) -> Result<(), Stopped> {
                    $(let _ = $name;)*
                    value.serialize(Discard)
                }

                fn end(self) -> Result<(), Stopped> {
                    Ok(())
                }
            }
        )*
    };
}

compounds!(
    SerializeSeq::serialize_element(),
    SerializeTuple::serialize_element(),
    SerializeTupleStruct::serialize_field(),
    SerializeTupleVariant::serialize_field(),
    SerializeStruct::serialize_field(key: &'static str),
    SerializeStructVariant::serialize_field(key: &'static str),
);

impl ser::SerializeMap for Discard {
    type Ok = ();
    type Error = Stopped;

    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), Stopped> {
        key.serialize(Discard)
    }

    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Stopped> {
        value.serialize(Discard)
    }

    fn end(self) -> Result<(), Stopped> {
        Ok(())
    }
}
