//! Typed access to one column of an Arrow record batch read from a counts
//! table, whatever encoding the writer chose: text as Utf8, LargeUtf8,
//! Utf8View or a dictionary of those; numbers as any float or integer;
//! lists of text. A column the file lacks is a constant (a hive partition
//! value such as `benchmark=x/` in the path, or NULL for an optional one).

use anyhow::{bail, Result};
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;

/// A text column.
pub enum Text<'a> {
    Utf8(&'a arrow_array::StringArray),
    Large(&'a arrow_array::LargeStringArray),
    View(&'a arrow_array::StringViewArray),
    Dict {
        array: &'a dyn Array,
        keys: Vec<usize>,
        values: Box<Text<'a>>,
    },
    Const(Option<&'a str>),
}

impl<'a> Text<'a> {
    /// The column `name` of `batch`, or `missing` when the batch has none.
    pub fn of(
        batch: &'a RecordBatch,
        name: &str,
        missing: Option<&'a str>,
        file: &str,
    ) -> Result<Text<'a>> {
        match batch.column_by_name(name) {
            Some(a) => Text::from_array(a, name, file),
            None => Ok(Text::Const(missing)),
        }
    }

    pub fn from_array(a: &'a ArrayRef, name: &str, file: &str) -> Result<Text<'a>> {
        Ok(match a.data_type() {
            DataType::Utf8 => Text::Utf8(a.as_string::<i32>()),
            DataType::LargeUtf8 => Text::Large(a.as_string::<i64>()),
            DataType::Utf8View => Text::View(a.as_string_view()),
            DataType::Null => Text::Const(None),
            DataType::Dictionary(_, _) => match a.as_any_dictionary_opt() {
                Some(d) => Text::Dict {
                    array: a.as_ref(),
                    keys: d.normalized_keys(),
                    values: Box::new(Text::from_array(d.values(), name, file)?),
                },
                None => bail!(
                    "{file}: column {name}: expected text, found {}",
                    a.data_type()
                ),
            },
            other => bail!("{file}: column {name}: expected text, found {other}"),
        })
    }

    #[inline]
    pub fn get(&self, i: usize) -> Option<&'a str> {
        match self {
            Text::Utf8(a) => (!a.is_null(i)).then(|| a.value(i)),
            Text::Large(a) => (!a.is_null(i)).then(|| a.value(i)),
            Text::View(a) => (!a.is_null(i)).then(|| a.value(i)),
            Text::Dict {
                array,
                keys,
                values,
            } => {
                if array.is_null(i) {
                    None
                } else {
                    values.get(keys[i])
                }
            }
            Text::Const(c) => *c,
        }
    }
}

/// A number column, read as f64 (integers convert exactly up to 2^53).
pub enum Number<'a> {
    Array(&'a dyn Array, fn(&dyn Array, usize) -> f64),
    Null,
}

impl<'a> Number<'a> {
    pub fn of(batch: &'a RecordBatch, name: &str, file: &str) -> Result<Number<'a>> {
        let Some(a) = batch.column_by_name(name) else {
            return Ok(Number::Null);
        };
        fn get<T: arrow_array::ArrowPrimitiveType>(a: &dyn Array, i: usize) -> f64
        where
            T::Native: Into<f64Like>,
        {
            let v: f64Like = a.as_primitive::<T>().value(i).into();
            v.0
        }
        let f: fn(&dyn Array, usize) -> f64 = match a.data_type() {
            DataType::Float64 => get::<Float64Type>,
            DataType::Float32 => get::<Float32Type>,
            DataType::Int64 => get::<Int64Type>,
            DataType::Int32 => get::<Int32Type>,
            DataType::Int16 => get::<Int16Type>,
            DataType::Int8 => get::<Int8Type>,
            DataType::UInt64 => get::<UInt64Type>,
            DataType::UInt32 => get::<UInt32Type>,
            DataType::UInt16 => get::<UInt16Type>,
            DataType::UInt8 => get::<UInt8Type>,
            DataType::Null => return Ok(Number::Null),
            other => bail!("{file}: column {name}: expected a number, found {other}"),
        };
        Ok(Number::Array(a.as_ref(), f))
    }

    #[inline]
    pub fn get(&self, i: usize) -> Option<f64> {
        match self {
            Number::Array(a, f) => (!a.is_null(i)).then(|| f(*a, i)),
            Number::Null => None,
        }
    }
}

/// Any primitive number as f64.
#[allow(non_camel_case_types)]
pub struct f64Like(f64);

macro_rules! f64_like {
    ($($t:ty),*) => {$(
        impl From<$t> for f64Like {
            #[allow(clippy::cast_lossless, clippy::cast_precision_loss)]
            fn from(v: $t) -> f64Like {
                f64Like(v as f64)
            }
        }
    )*};
}
f64_like!(f64, f32, i64, i32, i16, i8, u64, u32, u16, u8);

/// A column of lists of text (a run's warnings).
pub enum TextList<'a> {
    List(&'a arrow_array::ListArray),
    Large(&'a arrow_array::LargeListArray),
    Null,
}

impl<'a> TextList<'a> {
    pub fn of(batch: &'a RecordBatch, name: &str, file: &str) -> Result<TextList<'a>> {
        let Some(a) = batch.column_by_name(name) else {
            return Ok(TextList::Null);
        };
        Ok(match a.data_type() {
            DataType::List(_) => TextList::List(a.as_list::<i32>()),
            DataType::LargeList(_) => TextList::Large(a.as_list::<i64>()),
            DataType::Null => TextList::Null,
            other => bail!("{file}: column {name}: expected a list of text, found {other}"),
        })
    }

    /// The texts of row `i` (an empty list for NULL).
    pub fn get(&self, i: usize, name: &str, file: &str) -> Result<Vec<String>> {
        let values = match self {
            TextList::List(a) if !a.is_null(i) => a.value(i),
            TextList::Large(a) if !a.is_null(i) => a.value(i),
            _ => return Ok(Vec::new()),
        };
        let text = Text::from_array(&values, name, file)?;
        Ok((0..values.len())
            .filter_map(|j| text.get(j).map(str::to_string))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{DictionaryArray, Int64Array, LargeStringArray};
    use std::sync::Arc;

    #[test]
    fn text_and_numbers_in_other_encodings() {
        let dict: DictionaryArray<Int32Type> = vec![Some("a"), None, Some("b"), Some("a")]
            .into_iter()
            .collect();
        let batch = RecordBatch::try_from_iter([
            ("d", Arc::new(dict) as ArrayRef),
            (
                "l",
                Arc::new(LargeStringArray::from(vec!["x", "y", "z", "w"])) as ArrayRef,
            ),
            (
                "n",
                Arc::new(Int64Array::from(vec![
                    Some(1),
                    None,
                    Some(3),
                    Some(1 << 40),
                ])) as ArrayRef,
            ),
        ])
        .unwrap();
        let d = Text::of(&batch, "d", None, "f").unwrap();
        assert_eq!(
            (0..4).map(|i| d.get(i)).collect::<Vec<_>>(),
            [Some("a"), None, Some("b"), Some("a")]
        );
        assert_eq!(Text::of(&batch, "l", None, "f").unwrap().get(2), Some("z"));
        assert_eq!(
            Text::of(&batch, "gone", Some("p"), "f").unwrap().get(3),
            Some("p")
        );
        let n = Number::of(&batch, "n", "f").unwrap();
        assert_eq!(n.get(1), None);
        assert_eq!(n.get(3), Some(1099511627776.0));
        let e = Text::of(&batch, "n", None, "t.parquet").err().unwrap();
        assert_eq!(
            e.to_string(),
            "t.parquet: column n: expected text, found Int64"
        );
    }
}
