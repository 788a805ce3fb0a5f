package io.ringtail.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A Lua script read once from a {@code .lua} resource of this package, with its SHA-1. Immutable.
 */
final class LuaScript {
  final String name;
  final String body;
  final String sha;

  private LuaScript(String name, String body) {
    this.name = name;
    this.body = body;
    this.sha = sha1(body);
  }

  /** The concatenation of {@code resources} (a shared prelude first, then the script proper). */
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
    return new LuaScript(resources[resources.length - 1], body.toString());
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
