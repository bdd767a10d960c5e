// Rust workload: generics, closures, trait objects, std collections.
use std::collections::BTreeMap;

trait Shape {
    fn area(&self, k: u32) -> f64;
}
struct Circle(f64);
impl Shape for Circle {
    #[inline(never)]
    fn area(&self, k: u32) -> f64 {
        (0..k).map(|i| self.0 * self.0 * 3.14159 / f64::from(i + 1)).sum()
    }
}

#[inline(never)]
fn sum_squares<T: Copy + Into<u64>>(v: &[T]) -> u64 {
    v.iter().map(|&x| { let x: u64 = x.into(); x * x }).fold(0, u64::wrapping_add)
}

fn main() {
    let loops: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(2000);
    let v: Vec<u32> = (0..4096).collect();
    let shapes: Vec<Box<dyn Shape>> = vec![Box::new(Circle(1.5))];
    let mut map = BTreeMap::new();
    let mut total = 0.0;
    for i in 0..loops {
        total += shapes[0].area(2000) + sum_squares(&v) as f64;
        let mut words: Vec<String> = (0..500).map(|j| format!("{}", (j * 7919 + i) % 1009)).collect();
        words.sort_unstable();
        *map.entry(words[(i % 500) as usize].clone()).or_insert(0u64) += 1;
    }
    std::process::exit((total < 0.0) as i32 + (map.len() == 0) as i32);
}
