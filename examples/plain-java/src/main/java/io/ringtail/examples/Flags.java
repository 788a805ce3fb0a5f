package io.ringtail.examples;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The example programs' command-line flags: {@code --name value} pairs (the last of a repeated flag
 * wins) and {@code --help} or {@code -h}. {@link #parse} fails on a flag the program does not know
 * and on a flag without its value; the typed getters check a value when it is read, each failure an
 * {@link IllegalArgumentException} naming the flag and the value. Immutable.
 */
public final class Flags {
  private final Map<String, String> values;

  private Flags(Map<String, String> values) {
    this.values = values;
  }

  /**
   * The flags of {@code args}, each one of {@code known}.
   *
   * @throws HelpRequested if {@code --help} or {@code -h} is among them
   * @throws IllegalArgumentException for an unknown flag or a flag without a value
   */
  public static Flags parse(String[] args, String... known) {
    List<String> knownFlags = List.of(known);
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      if (flag.equals("--help") || flag.equals("-h")) {
        throw new HelpRequested();
      }
      if (!knownFlags.contains(flag)) {
        throw new IllegalArgumentException(
            "unknown flag " + flag + "; flags: " + String.join(", ", knownFlags));
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(flag + " needs a value");
      }
      values.put(flag, args[++i]);
    }
    return new Flags(values);
  }

  /** The value given to {@code flag}, if it was given. */
  public Optional<String> string(String flag) {
    return Optional.ofNullable(values.get(flag));
  }

  /**
   * The whole number given to {@code flag}, in {@code [min, max]}; {@code fallback} if not given.
   */
  public long whole(String flag, long fallback, long min, long max) {
    String value = values.get(flag);
    if (value == null) {
      return fallback;
    }
    long v = parseLong(flag, value);
    if (v < min || v > max) {
      throw new IllegalArgumentException(
          flag + " must be between " + min + " and " + max + ", but was " + value);
    }
    return v;
  }

  /** The positive {@code int} given to {@code flag}; {@code fallback} if not given. */
  public int positive(String flag, int fallback) {
    String value = values.get(flag);
    if (value == null) {
      return fallback;
    }
    try {
      int v = Integer.parseInt(value);
      if (v > 0) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(flag + " must be a positive whole number, but was " + value);
  }

  private static long parseLong(String flag, String value) {
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(flag + " must be a whole number, but was " + value);
    }
  }

  /** Thrown by {@link #parse} for {@code --help}: the program prints its usage. */
  public static final class HelpRequested extends RuntimeException {
    private static final long serialVersionUID = 1L;

    HelpRequested() {
      super("help", null, false, false);
    }
  }
}
