package io.ringtail.redis;

/**
 * Keys of one decision's state for one user key: {@code <prefix>:{<name>:<key>}:<suffix>}, name and
 * key escaped like {@link WindowKeys} plus {@code :} to {@code %3A}, so every key of one (decision,
 * user key) pair shares a hash tag and different pairs never collide.
 */
final class DecisionKeys {
  private DecisionKeys() {}

  static String[] of(String prefix, String name, String key, String... suffixes) {
    String tag = prefix + ":{" + escape(name) + ":" + escape(key) + "}:";
    String[] keys = new String[suffixes.length];
    for (int i = 0; i < suffixes.length; i++) {
      keys[i] = tag + suffixes[i];
    }
    return keys;
  }

  /** {@code s} with {@code % { } :} escaped; {@code s} itself when it has none (no copy). */
  static String escape(String s) {
    int first = 0;
    while (first < s.length() && !special(s.charAt(first))) {
      first++;
    }
    if (first == s.length()) {
      return s;
    }
    StringBuilder b = new StringBuilder(s.length() + 8).append(s, 0, first);
    for (int i = first; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '%' -> b.append("%25");
        case '{' -> b.append("%7B");
        case '}' -> b.append("%7D");
        case ':' -> b.append("%3A");
        default -> b.append(c);
      }
    }
    return b.toString();
  }

  private static boolean special(char c) {
    return c == '%' || c == '{' || c == '}' || c == ':';
  }
}
