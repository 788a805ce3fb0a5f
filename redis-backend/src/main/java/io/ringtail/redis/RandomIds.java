package io.ringtail.redis;

import java.math.BigInteger;
import java.security.SecureRandom;

/**
 * Random ids that tell this process's writes apart from every other process's: a window's event-id
 * prefix, a histogram publisher's id. Stateless and thread-safe.
 */
final class RandomIds {
  private RandomIds() {}

  /** {@code bytes} (at most 8) random bytes as a non-negative base-36 number. */
  static String base36(int bytes) {
    byte[] random = new byte[bytes];
    new SecureRandom().nextBytes(random);
    return Long.toString(new BigInteger(1, random).longValue() & Long.MAX_VALUE, 36);
  }
}
