package io.ringtail.spring;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import org.springframework.context.ConfigurableApplicationContext;

/** Requests of the starter's tests to an application on its random port; stateless. */
public final class AppRequests {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private AppRequests() {}

  /** {@code method} {@code path} to {@code app}, with {@code headers} (name, value, ...). */
  public static HttpResponse<String> send(
      ConfigurableApplicationContext app, String method, String path, String... headers)
      throws Exception {
    int port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .method(method, HttpRequest.BodyPublishers.noBody());
    if (headers.length > 0) {
      request.headers(headers);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The first value of the answer's header field {@code name}. */
  public static Optional<String> header(HttpResponse<?> r, String name) {
    return r.headers().firstValue(name);
  }
}
