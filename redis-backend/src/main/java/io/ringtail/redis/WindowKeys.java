package io.ringtail.redis;

/**
 * The Redis keys of one window: {@code <prefix>:{<escaped name>}:<suffix>}. Every key of a window
 * carries the same hash tag, so a multi-key script never fails with CROSSSLOT on a cluster. The
 * name is escaped ({@code %} to {@code %25}, <code>{</code> to {@code %7B}, <code>}</code> to
 * {@code %7D}) so a user name with braces can neither move the tag nor collide with another name.
 */
final class WindowKeys {
  private WindowKeys() {}

  static String tag(String prefix, String name) {
    StringBuilder b =
        new StringBuilder(prefix.length() + name.length() + 4).append(prefix).append(":{");
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      switch (c) {
        case '%' -> b.append("%25");
        case '{' -> b.append("%7B");
        case '}' -> b.append("%7D");
        default -> b.append(c);
      }
    }
    return b.append('}').toString();
  }

  /** Time ZSET, value ZSET, sum, rejected ZSET of the window {@code name}. */
  static String[] window(String prefix, String name) {
    String tag = tag(prefix, name);
    return new String[] {tag + ":t", tag + ":v", tag + ":s", tag + ":r"};
  }
}
