package io.ringtail.examples.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.ManualTimeSource;
import io.ringtail.TimeSource;
import io.ringtail.decision.RateLimiter;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RateLimitedApiTest {
  private final HttpClient http = HttpClient.newHttpClient();
  private final ManualTimeSource time = new ManualTimeSource(42);
  private RateLimitedApi api;

  @BeforeEach
  void start() throws Exception {
    api = new RateLimitedApi(0, 3, Duration.ofSeconds(10), time);
    api.start();
  }

  @AfterEach
  void stop() {
    api.close();
  }

  @Test
  void overTheLimit_answers429_withRetryAfterUntilTheOldestRequestLeaves() throws Exception {
    assertThat(get("alice").headers().firstValue("RateLimit-Remaining")).hasValue("2");
    time.advance(Duration.ofMillis(2_500));
    assertThat(get("alice").statusCode()).isEqualTo(200);
    HttpResponse<String> third = get("alice");
    assertThat(third.statusCode()).isEqualTo(200);
    assertThat(third.headers().firstValue("RateLimit-Remaining")).hasValue("0");
    assertThat(third.headers().firstValue("Retry-After")).isEmpty();

    HttpResponse<String> denied = get("alice");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(denied.headers().firstValue("Retry-After"))
        .as("oldest at 0 s leaves at 10 s; now 2.5 s")
        .hasValue("8");
    assertThat(denied.body()).contains("3 requests per 10 s");

    time.advance(Duration.ofMillis(7_499));
    assertThat(get("alice").headers().firstValue("Retry-After")).hasValue("1");
    time.advance(Duration.ofMillis(1));
    assertThat(get("alice").statusCode())
        .as("the oldest request has left the window")
        .isEqualTo(200);
  }

  @Test
  void keys_areLimitedIndependently() throws Exception {
    for (int i = 0; i < 3; i++) {
      assertThat(get("alice").statusCode()).isEqualTo(200);
    }
    assertThat(get("alice").statusCode()).isEqualTo(429);
    assertThat(get("bob").statusCode()).isEqualTo(200);
  }

  @Test
  void missingKey_isUnauthorized() throws Exception {
    HttpResponse<String> r =
        http.send(HttpRequest.newBuilder(api.uri()).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(401);
  }

  /** The runnable demo, headless: a burst of 12 against a limit of 10, then a second client. */
  @Test
  void run_burstOverTheLimit_getsTwo429s() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();

    Map<Integer, Integer> statuses =
        RateLimitedApi.run(
            RateLimiter.inProcess(RateLimitedApi.config(10, TimeSource.system())),
            12,
            new PrintStream(out, true, StandardCharsets.UTF_8));

    assertThat(statuses).containsExactly(Map.entry(200, 13), Map.entry(429, 2));
    assertThat(out.toString(StandardCharsets.UTF_8))
        .containsPattern("client-a  burst 11  -> 429  remaining 0  Retry-After: (59|60) s")
        .contains("client-b  calm 3    -> 200  remaining 7");
  }

  private HttpResponse<String> get(String key) throws Exception {
    return http.send(
        HttpRequest.newBuilder(api.uri()).header(RateLimitedApi.KEY_HEADER, key).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
