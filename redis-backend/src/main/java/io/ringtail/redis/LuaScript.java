package io.ringtail.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A Lua script read once from a {@code .lua} resource of this package, with its SHA-1 and whether
 * it only reads. Immutable.
 */
final class LuaScript {
  final String name;
  final String body;
  final String sha;

  /**
   * Whether the script only reads (evicting at most what left a window, which any replica would
   * evict alike): its calls wait for no replica to confirm a write.
   */
  final boolean readOnly;

  private LuaScript(String name, String body, boolean readOnly) {
    this.name = name;
    this.body = body;
    this.sha = sha1(body);
    this.readOnly = readOnly;
  }

  /**
   * The script that writes made of the concatenation of {@code resources} (a shared prelude first,
   * then the script proper).
   */
  static LuaScript load(String... resources) {
    StringBuilder body = new StringBuilder();
    for (String resource : resources) {
      try (InputStream in = LuaScript.class.getResourceAsStream(resource)) {
        if (in == null) {
          throw new IllegalStateException("missing script resource " + resource);
        }
        body.append(new String(in.readAllBytes(), StandardCharsets.UTF_8)).append('\n');
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return new LuaScript(resources[resources.length - 1], body.toString(), false);
  }

  /** This script, marked as one that only {@linkplain #readOnly reads}. */
  LuaScript readOnly() {
    return new LuaScript(name, body, true);
  }

  static String sha1(String body) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-1").digest(body.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public String toString() {
    return name + "@" + sha;
  }
}
