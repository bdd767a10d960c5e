//! Counts tables compressed as engines may write them: every codec the
//! build reads gives the same report as the zstd table `export` writes;
//! one it does not read (brotli) is refused naming the codec and the
//! codecs read, not with the parquet crate's "Disabled feature".

use crate::export::{ok, run, s, scratch, small_tree};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, GzipLevel};
use parquet::file::properties::WriterProperties;
use std::fs;
use std::path::Path;

/// Rewrite the table `from` into `to` with `codec`, keeping its rows and
/// its key-value metadata (the schema version).
fn recompress(from: &Path, to: &Path, codec: Compression) {
    let builder = ParquetRecordBatchReaderBuilder::try_new(fs::File::open(from).unwrap()).unwrap();
    let kv = builder
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .cloned();
    let schema = builder.schema().clone();
    let props = WriterProperties::builder()
        .set_compression(codec)
        .set_key_value_metadata(kv)
        .build();
    let mut w = ArrowWriter::try_new(fs::File::create(to).unwrap(), schema, Some(props)).unwrap();
    for batch in builder.build().unwrap() {
        w.write(&batch.unwrap()).unwrap();
    }
    w.close().unwrap();
}

fn report(table: &Path) -> Vec<u8> {
    let args = [
        "--table",
        s(table),
        "--old",
        "kernel=base",
        "--new",
        "kernel=next",
        "--where",
        "benchmark=rp",
        "-o",
        "json",
    ];
    ok(&args).stdout
}

#[test]
fn every_codec_read_gives_the_same_report_and_brotli_is_named() {
    let d = scratch("codecs");
    let tree = d.join("tree");
    small_tree(&tree);
    let t = d.join("t.parquet");
    ok(&["export", s(&tree), "-o", s(&t)]);
    let want = report(&t);
    for (name, codec) in [
        ("gzip", Compression::GZIP(GzipLevel::default())),
        ("lz4", Compression::LZ4),
        ("lz4_raw", Compression::LZ4_RAW),
        ("snappy", Compression::SNAPPY),
        ("none", Compression::UNCOMPRESSED),
    ] {
        let to = d.join(format!("{name}.parquet"));
        recompress(&t, &to, codec);
        assert_eq!(report(&to), want, "{name}");
    }
    // Brotli cannot be written by this build: an uncompressed table whose
    // column chunks are marked brotli in the footer (ColumnMetaData field
    // 4, codec, after the path_in_schema list: 0x15 0x00 → 0x15 0x08).
    let plain = fs::read(d.join("none.parquet")).unwrap();
    let n = plain.len();
    let footer_len = u32::from_le_bytes(plain[n - 8..n - 4].try_into().unwrap()) as usize;
    let start = n - 8 - footer_len;
    let mut brotli = plain.clone();
    let mut marked = 0;
    for i in start..n - 9 {
        if brotli[i] == 0x15
            && brotli[i + 1] == 0x00
            && i > start
            && brotli[i - 1].is_ascii_alphanumeric()
        {
            brotli[i + 1] = 0x08;
            marked += 1;
        }
    }
    assert!(marked > 0);
    let to = d.join("brotli.parquet");
    fs::write(&to, &brotli).unwrap();
    let meta = ParquetRecordBatchReaderBuilder::try_new(fs::File::open(&to).unwrap()).unwrap();
    let codecs: Vec<Compression> = meta
        .metadata()
        .row_group(0)
        .columns()
        .iter()
        .map(|c| c.compression())
        .collect();
    assert!(
        codecs.iter().any(|c| matches!(c, Compression::BROTLI(_))),
        "{codecs:?}"
    );
    let o = run(&[
        "--table",
        s(&to),
        "--old",
        "kernel=base",
        "--new",
        "kernel=next",
        "--where",
        "benchmark=rp",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("is compressed with brotli, which diffprofile does not read (it reads uncompressed, snappy, gzip, lz4, lz4_raw, zstd)"),
        "{err}"
    );
    assert!(!err.contains("Disabled feature"), "{err}");
    let _ = fs::remove_dir_all(&d);
}
