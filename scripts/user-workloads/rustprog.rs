// Rust workload without std (a small binary): generics, a closure, a trait
// object; links against libc for its start-up and atol.
#![no_std]
#![no_main]

use core::hint::black_box;
use core::panic::PanicInfo;

#[panic_handler]
fn panic(_: &PanicInfo) -> ! {
    loop {}
}

pub trait Shape {
    fn area(&self, k: u32) -> f64;
}

pub struct Circle(pub f64);

impl Shape for Circle {
    #[inline(never)]
    fn area(&self, k: u32) -> f64 {
        (0..k).map(|i| self.0 * self.0 * 3.14159 / f64::from(i + 1)).sum()
    }
}

#[inline(never)]
fn sum_squares<T: Copy + Into<u64>>(v: &[T]) -> u64 {
    v.iter()
        .map(|&x| {
            let x: u64 = x.into();
            x.wrapping_mul(x)
        })
        .fold(0, u64::wrapping_add)
}

extern "C" {
    fn atol(s: *const u8) -> i64;
}

#[no_mangle]
pub extern "C" fn main(argc: i32, argv: *const *const u8) -> i32 {
    let loops = if argc > 1 { unsafe { atol(*argv.add(1)) } } else { 2000 };
    let v = [3u32; 4096];
    let shape: &dyn Shape = &Circle(1.5);
    let mut total = 0.0;
    for _ in 0..loops {
        total += black_box(shape).area(2000) + sum_squares(black_box(&v[..])) as f64;
    }
    (total < 0.0) as i32
}
