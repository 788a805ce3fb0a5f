package io.ringtail;

import io.ringtail.internal.Checks;
import java.nio.ByteBuffer;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * {@link HistogramSnapshot}'s byte form: a magic number, the exact fields (sum, min, max, rejected,
 * interval) and HdrHistogram's compressed encoding of the counts; totals are not carried. Static
 * helpers only.
 */
final class SnapshotCodec {
  private static final int MAGIC = 0x52545331; // "RTS1"

  private SnapshotCodec() {}

  static byte[] encode(HistogramSnapshot snapshot) {
    SnapshotFields f = snapshot.fields();
    Histogram histogram = snapshot.histogram();
    ByteBuffer encoded = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
    int histogramBytes = histogram.encodeIntoCompressedByteBuffer(encoded);
    ByteBuffer out = ByteBuffer.allocate(4 + 6 * Long.BYTES + histogramBytes);
    out.putInt(MAGIC)
        .putLong(f.sum())
        .putLong(f.min())
        .putLong(f.max())
        .putLong(f.rejected())
        .putLong(f.startNanos())
        .putLong(f.endNanos());
    out.put(encoded.array(), 0, histogramBytes);
    return out.array();
  }

  static HistogramSnapshot decode(byte[] bytes) {
    Checks.requireNonNull("bytes", bytes);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    if (bytes.length < 4 + 6 * Long.BYTES || in.getInt() != MAGIC) {
      throw Checks.invalid(
          "bytes", "a Ringtail snapshot, which starts with its header", bytes.length + " bytes");
    }
    SnapshotFields fields =
        new SnapshotFields(
            in.getLong(),
            in.getLong(),
            in.getLong(),
            in.getLong(),
            in.getLong(),
            in.getLong(),
            null);
    try {
      Histogram histogram = Histogram.decodeFromCompressedByteBuffer(in, 0);
      return SnapshotBuilder.ofHistogram(histogram, fields);
    } catch (DataFormatException | RuntimeException e) {
      throw Checks.invalid(
          "bytes",
          "a whole Ringtail snapshot",
          "one whose histogram could not be decoded: " + e,
          e);
    }
  }
}
