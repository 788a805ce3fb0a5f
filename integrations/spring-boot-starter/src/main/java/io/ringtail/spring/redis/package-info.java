/**
 * The Redis backend in Spring Boot: a {@code RedisBackend} on the application's Lettuce client when
 * {@code ringtail.redis.enabled=true} ({@link
 * io.ringtail.spring.redis.RingtailRedisAutoConfiguration}), a start that fails naming what is
 * missing from the class path, and the backend's events, meters and health ({@link
 * io.ringtail.spring.redis.RedisBackendEvents}, {@link
 * io.ringtail.spring.redis.RedisBackendMetrics}, {@code ringtailRedis}).
 */
package io.ringtail.spring.redis;
