//! Save states: what the emulated units share to derive serde on their state.
//!
//! Contract: serde implements its traits for arrays of up to 32 elements; the units keep larger
//! fixed arrays (register files, histories, FIFOs), boxed or nested. Each helper here is a
//! `#[serde(with = "...")]` module that writes such an array as a plain sequence and reads it
//! back refusing any other length, so a damaged state is an error, never a panic.

use serde::de::Error;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// `Box<[T; N]>` of any `N`.
pub mod boxed {
    use super::*;

    /// Writes the array as a sequence.
    pub fn serialize<S: Serializer, T: Serialize, const N: usize>(
        v: &[T; N],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter())
    }

    /// Reads a sequence of exactly `N`.
    pub fn deserialize<'de, D: Deserializer<'de>, T: Deserialize<'de>, const N: usize>(
        d: D,
    ) -> Result<Box<[T; N]>, D::Error> {
        let v = Vec::<T>::deserialize(d)?;
        let n = v.len();
        v.into_boxed_slice()
            .try_into()
            .map_err(|_| D::Error::custom(format!("an array of {n} elements, not {N}")))
    }
}

/// `[[T; N]; M]` of any `N` and `M`.
pub mod nested {
    use super::*;

    /// Writes the rows as a sequence of sequences.
    pub fn serialize<S: Serializer, T: Serialize, const N: usize, const M: usize>(
        v: &[[T; N]; M],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(|row| row.as_slice()))
    }

    /// Reads exactly `M` rows of exactly `N`.
    pub fn deserialize<'de, D: Deserializer<'de>, T, const N: usize, const M: usize>(
        d: D,
    ) -> Result<[[T; N]; M], D::Error>
    where
        T: Deserialize<'de> + Copy + Default,
    {
        let rows = Vec::<Vec<T>>::deserialize(d)?;
        if rows.len() != M || rows.iter().any(|r| r.len() != N) {
            return Err(D::Error::custom(format!(
                "an array of {} rows, not {M} of {N}",
                rows.len()
            )));
        }
        let mut out = [[T::default(); N]; M];
        for (o, r) in out.iter_mut().zip(rows) {
            o.copy_from_slice(&r);
        }
        Ok(out)
    }
}

/// `Option<[T; N]>` of any `N`.
pub mod opt_array {
    use super::*;

    /// Writes `None` or the array as a sequence.
    pub fn serialize<S: Serializer, T: Serialize, const N: usize>(
        v: &Option<[T; N]>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        v.as_ref().map(|a| a.as_slice()).serialize(s)
    }

    /// Reads `None` or a sequence of exactly `N`.
    pub fn deserialize<'de, D: Deserializer<'de>, T: Deserialize<'de>, const N: usize>(
        d: D,
    ) -> Result<Option<[T; N]>, D::Error> {
        match Option::<Vec<T>>::deserialize(d)? {
            None => Ok(None),
            Some(v) => {
                let n = v.len();
                v.try_into()
                    .map(Some)
                    .map_err(|_| D::Error::custom(format!("an array of {n} elements, not {N}")))
            }
        }
    }
}
