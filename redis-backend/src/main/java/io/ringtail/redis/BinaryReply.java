package io.ringtail.redis;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A script's reply with its bulk strings kept as bytes, whatever the connection's codec: bulk and
 * status strings are {@code byte[]} (null for nil), integers {@code Long}, arrays {@code List}. Not
 * thread-safe (one per command).
 */
final class BinaryReply extends CommandOutput<String, String, List<Object>> {
  /**
   * A bulk string of a reply as text (UTF-8), null for nil; also takes one a string codec decoded
   * already.
   */
  static String text(Object bulk) {
    if (bulk == null || bulk instanceof String) {
      return (String) bulk;
    }
    return new String((byte[]) bulk, StandardCharsets.UTF_8);
  }

  /** Script arguments as bytes (UTF-8), as a connection with a string codec would send them. */
  static byte[][] utf8(String[] args) {
    byte[][] bytes = new byte[args.length][];
    for (int i = 0; i < args.length; i++) {
      bytes[i] = args[i].getBytes(StandardCharsets.UTF_8);
    }
    return bytes;
  }

  /** Open arrays, innermost first, with how many elements each still expects. */
  private final ArrayDeque<List<Object>> open = new ArrayDeque<>();

  private final ArrayDeque<int[]> remaining = new ArrayDeque<>();
  private boolean started;

  BinaryReply() {
    super(StringCodec.UTF8, new ArrayList<>());
  }

  @Override
  public void set(ByteBuffer bytes) {
    if (bytes == null) {
      add(null);
      return;
    }
    byte[] copy = new byte[bytes.remaining()];
    bytes.get(copy);
    add(copy);
  }

  @Override
  public void setSingle(ByteBuffer bytes) {
    set(bytes);
  }

  @Override
  public void set(long integer) {
    add(integer);
  }

  @Override
  public void set(double number) {
    add(number);
  }

  @Override
  public void set(boolean value) {
    add(value);
  }

  @Override
  public void multi(int count) {
    List<Object> list;
    if (!started) {
      list = output;
    } else {
      list = new ArrayList<>(Math.max(0, count));
      add(list);
    }
    started = true;
    if (count > 0) {
      open.push(list);
      remaining.push(new int[] {count});
    }
  }

  private void add(Object value) {
    started = true;
    if (open.isEmpty()) {
      output.add(value);
      return;
    }
    open.peek().add(value);
    if (--remaining.peek()[0] == 0) {
      open.pop();
      remaining.pop();
    }
  }
}
