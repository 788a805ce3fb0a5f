/**
 * Spring Boot auto-configuration for Ringtail: every {@code RollingWindow} and {@code KeyedWindows}
 * bean bound to the application's {@code MeterRegistry} under its bean name, a {@code RedisBackend}
 * on the application's Lettuce client when {@code ringtail.redis.enabled=true}, and {@code
 * AlertRule} beans evaluated on a scheduler the context manages. Settings: {@link
 * io.ringtail.spring.RingtailProperties ringtail.*}.
 */
package io.ringtail.spring;
