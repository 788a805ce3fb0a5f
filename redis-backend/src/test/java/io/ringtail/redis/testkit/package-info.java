/**
 * Real Redis servers for tests: {@link io.ringtail.redis.testkit.RedisProcess} starts a {@code
 * redis-server} on a free port (the one on the PATH, or the binary the embedded-redis test
 * dependency ships), {@link io.ringtail.redis.testkit.LocalRedisCluster} forms a 3-master cluster,
 * and {@link io.ringtail.redis.testkit.RedisExtension} hands either to a JUnit test. Published in
 * the Redis module's test-jar.
 */
package io.ringtail.redis.testkit;
