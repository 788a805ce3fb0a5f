package io.ringtail.redis;

/**
 * The package-private details of this module that several of its tests read, in one place: the
 * record and snapshot scripts and the key layout. Not API, and not in the test-jar. Stateless and
 * thread-safe.
 */
public final class RedisTestKit {
  private RedisTestKit() {}

  /** The body of {@code window_record.lua}, as the library loads it. */
  public static String windowRecordScript() {
    return Scripts.WINDOW_RECORD.body;
  }

  /** The SHA-1 the library calls {@code window_record.lua} by. */
  public static String windowRecordSha() {
    return Scripts.WINDOW_RECORD.sha;
  }

  /** The SHA-1 the library calls {@code window_snapshot.lua} by. */
  public static String windowSnapshotSha() {
    return Scripts.WINDOW_SNAPSHOT.sha;
  }

  /**
   * The keys of window {@code name} under {@code prefix}: time ZSET, value ZSET, sum, rejected
   * ZSET.
   */
  public static String[] windowKeys(String prefix, String name) {
    return WindowKeys.window(prefix, name);
  }

  /** The key of one sliding-log rate limiter's state for one user key. */
  public static String[] rateLimiterKeys(String prefix, String name, String key) {
    return DecisionKeys.of(prefix, name, key, RedisRateLimiter.KEY_SUFFIXES);
  }

  /** The keys of one decision's state for one user key, one per suffix. */
  public static String[] decisionKeys(String prefix, String name, String key, String... suffixes) {
    return DecisionKeys.of(prefix, name, key, suffixes);
  }
}
