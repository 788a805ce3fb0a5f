package io.ringtail.examples.shop;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A small shop service with no Ringtail code at all: the starter on the classpath and a few
 * properties ({@code application.properties}) give every endpoint a rolling window, published at
 * {@code /actuator/prometheus} as {@code
 * ringtail_http_server_requests_percentile_seconds{phi="0.95", uri="/orders/{id}",...}}, and listed
 * at {@code /actuator/ringtail}.
 *
 * <p>Run: {@code mvn -q -pl examples/spring-boot -am compile exec:java}, then {@code curl
 * localhost:8080/orders/42} and {@code curl localhost:8080/actuator/prometheus}. With {@code
 * --spring.data.redis.url=redis://HOST:PORT --ringtail.redis.enabled=true} the Redis backend's
 * health shows at {@code /actuator/health}.
 */
@SpringBootApplication
public class ShopApplication {

  public static void main(String[] args) {
    SpringApplication.run(ShopApplication.class, args);
  }
}
