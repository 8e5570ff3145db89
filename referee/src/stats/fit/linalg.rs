//! The dense linear algebra the rating fit needs: a Cholesky factor of a
//! symmetric positive-definite matrix, solves with it and its inverse.
//! Matrices are row-major `n × n` slices. The fit's matrices are small
//! (one row per agent), so plain loops ordered for contiguous rows do.

/// A Cholesky factor `L` (lower triangle, row-major) with `A = L Lᵀ`.
pub(super) struct Cholesky {
    n: usize,
    l: Vec<f64>,
}

impl Cholesky {
    /// Factors `a` (`n × n`, symmetric; only its lower triangle is read);
    /// `None` when it is not positive definite (to rounding).
    pub(super) fn new(a: &[f64], n: usize) -> Option<Cholesky> {
        let mut l = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..=i {
                let (ri, rj) = (&l[i * n..i * n + j], &l[j * n..j * n + j]);
                let dot: f64 = ri.iter().zip(rj).map(|(x, y)| x * y).sum();
                let v = a[i * n + j] - dot;
                if i == j {
                    // A pivot this small against its diagonal means the
                    // matrix is singular as far as doubles can tell.
                    if v <= a[i * n + i].abs() * 1e-13 || !v.is_finite() {
                        return None;
                    }
                    l[i * n + i] = v.sqrt();
                } else {
                    l[i * n + j] = v / l[j * n + j];
                }
            }
        }
        Some(Cholesky { n, l })
    }

    /// `x` with `A x = b`.
    pub(super) fn solve(&self, b: &[f64]) -> Vec<f64> {
        let n = self.n;
        let l = &self.l;
        // L y = b, then Lᵀ x = y.
        let mut y = b.to_vec();
        for i in 0..n {
            let dot: f64 = l[i * n..i * n + i].iter().zip(&y[..i]).map(|(a, b)| a * b).sum();
            y[i] = (y[i] - dot) / l[i * n + i];
        }
        for i in (0..n).rev() {
            let mut v = y[i];
            for k in i + 1..n {
                v -= l[k * n + i] * y[k];
            }
            y[i] = v / l[i * n + i];
        }
        y
    }

    /// `A⁻¹` (row-major): `L⁻¹` first, then `L⁻ᵀ L⁻¹`.
    pub(super) fn inverse(&self) -> Vec<f64> {
        let n = self.n;
        let l = &self.l;
        // Row i of M = L⁻¹ (lower triangular): from L M = I.
        let mut m = vec![0.0; n * n];
        for i in 0..n {
            m[i * n + i] = 1.0 / l[i * n + i];
            for j in 0..i {
                let mut v = 0.0;
                for k in j..i {
                    v += l[i * n + k] * m[k * n + j];
                }
                m[i * n + j] = -v / l[i * n + i];
            }
        }
        // (Mᵀ M)[i][j] = Σ_k M[k][i] M[k][j], k ≥ max(i, j): accumulated
        // row by row of M, so every inner loop runs along a row.
        let mut inv = vec![0.0; n * n];
        for k in 0..n {
            let row = &m[k * n..k * n + k + 1];
            for (i, &mki) in row.iter().enumerate() {
                if mki == 0.0 {
                    continue;
                }
                let out = &mut inv[i * n..i * n + i + 1];
                for (o, &mkj) in out.iter_mut().zip(&row[..=i]) {
                    *o += mki * mkj;
                }
            }
        }
        for i in 0..n {
            for j in 0..i {
                inv[j * n + i] = inv[i * n + j];
            }
        }
        inv
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_and_inverts_a_small_system_by_hand() {
        // A = [[4, 2, 0], [2, 5, 1], [0, 1, 3]]: det 4(15-1) - 2(6) = 44.
        let a = [4.0, 2.0, 0.0, 2.0, 5.0, 1.0, 0.0, 1.0, 3.0];
        let c = Cholesky::new(&a, 3).unwrap();
        let x = c.solve(&[2.0, 8.0, 5.0]);
        // A x = b, row by row.
        for i in 0..3 {
            let r: f64 = (0..3).map(|k| a[i * 3 + k] * x[k]).sum();
            assert!((r - [2.0, 8.0, 5.0][i]).abs() < 1e-12, "{x:?}");
        }
        let inv = c.inverse();
        for i in 0..3 {
            for j in 0..3 {
                let v: f64 = (0..3).map(|k| a[i * 3 + k] * inv[k * 3 + j]).sum();
                assert!((v - f64::from(u8::from(i == j))).abs() < 1e-12, "{inv:?}");
            }
        }
        // Cofactor check: (A⁻¹)[0][0] = (5*3 - 1*1) / 44.
        assert!((inv[0] - 14.0 / 44.0).abs() < 1e-12);
        assert!(Cholesky::new(&[1.0, 1.0, 1.0, 1.0], 2).is_none(), "singular");
    }
}
