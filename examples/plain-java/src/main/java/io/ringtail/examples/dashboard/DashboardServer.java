package io.ringtail.examples.dashboard;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The dashboard's HTTP side on the JDK's built-in server, bound to 127.0.0.1: the page at {@code
 * /}, its data at {@code /api/stats}, Prometheus text at {@code /metrics} and the uPlot WebJar
 * under {@code /webjars/}. Thread-safe; {@link #stop()} ends its threads.
 */
final class DashboardServer implements AutoCloseable {
  static final String PAGE = "io/ringtail/examples/dashboard/index.html";
  private static final String WEBJARS = "META-INF/resources";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer server;
  private final ExecutorService executor;

  DashboardServer(int port, DashboardModel model, Supplier<String> metrics) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
    executor =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "dashboard-http");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.createContext(
        "/",
        exchange -> {
          try (exchange) {
            String path = exchange.getRequestURI().getPath();
            if (!exchange.getRequestMethod().equals("GET")) {
              send(exchange, 405, "text/plain", "GET only\n".getBytes(StandardCharsets.UTF_8));
            } else if (path.equals("/") || path.equals("/index.html")) {
              sendResource(exchange, PAGE);
            } else if (path.equals("/api/stats")) {
              send(exchange, 200, "application/json", JSON.writeValueAsBytes(model.toJson()));
            } else if (path.equals("/metrics")) {
              send(
                  exchange,
                  200,
                  "text/plain; version=0.0.4; charset=utf-8",
                  metrics.get().getBytes(StandardCharsets.UTF_8));
            } else if (path.startsWith("/webjars/") && !path.contains("..")) {
              sendResource(exchange, WEBJARS + path);
            } else {
              send(exchange, 404, "text/plain", "not found\n".getBytes(StandardCharsets.UTF_8));
            }
          }
        });
  }

  void start() {
    server.start();
  }

  int port() {
    return server.getAddress().getPort();
  }

  String url() {
    return "http://127.0.0.1:" + port() + "/";
  }

  void stop() {
    server.stop(0);
    executor.shutdownNow();
  }

  @Override
  public void close() {
    stop();
  }

  private static void sendResource(HttpExchange exchange, String resource) throws IOException {
    try (InputStream in = DashboardServer.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        send(exchange, 404, "text/plain", "not found\n".getBytes(StandardCharsets.UTF_8));
        return;
      }
      send(exchange, 200, contentType(resource), in.readAllBytes());
    }
  }

  private static String contentType(String name) {
    if (name.endsWith(".html")) {
      return "text/html; charset=utf-8";
    }
    if (name.endsWith(".js")) {
      return "text/javascript; charset=utf-8";
    }
    if (name.endsWith(".css")) {
      return "text/css; charset=utf-8";
    }
    return "application/octet-stream";
  }

  private static void send(HttpExchange exchange, int status, String type, byte[] body)
      throws IOException {
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }
}
