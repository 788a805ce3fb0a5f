package io.ringtail.examples.shop;

import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.alert.AlertRule;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.RedisRollingWindow;
import java.time.Duration;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * A small shop service on the Ringtail Spring Boot starter. The starter binds each window bean
 * below to Actuator's metrics under its bean name and evaluates the SLO rule every {@code
 * ringtail.alerts.interval}:
 *
 * <ul>
 *   <li>{@code checkoutLatency}: this instance's checkout latency over the last minute;
 *   <li>{@code checkoutSlo}: fires when the checkout latency SLO (99 % within 250 ms) burns its
 *       error budget more than 10 times too fast;
 *   <li>{@code fleetCheckoutLatency}: every instance's checkout latency in one Redis window, when
 *       started with {@code --spring.data.redis.url=redis://HOST:PORT
 *       --ringtail.redis.enabled=true}.
 * </ul>
 *
 * Run: {@code mvn -q -pl examples/spring-boot -am compile exec:java}, then {@code curl
 * localhost:8080/checkout} and {@code curl localhost:8080/actuator/prometheus}.
 */
@SpringBootApplication
public class ShopApplication {
  /** Checkout latency objective. */
  static final Duration TARGET = Duration.ofMillis(250);

  public static void main(String[] args) {
    SpringApplication.run(ShopApplication.class, args);
  }

  @Bean
  RollingWindow checkoutLatency() {
    return RollingWindow.create(
        WindowConfig.builder().length(Duration.ofMinutes(1)).buckets(12).build());
  }

  @Bean
  AlertRule checkoutSlo(@Qualifier("checkoutLatency") RollingWindow checkoutLatency) {
    return AlertRule.sloBurn("checkout-slo", checkoutLatency, TARGET.toNanos(), 0.99)
        .above(10)
        .minimumSamples(20)
        .build();
  }

  @Bean
  @ConditionalOnProperty(name = "ringtail.redis.enabled", havingValue = "true")
  RedisRollingWindow fleetCheckoutLatency(RedisBackend backend) {
    return backend.window("shop.checkout").length(Duration.ofMinutes(1)).build();
  }
}
