package io.ringtail.redis.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for 127.0.0.1 and its private key, made for a test by the JDK's own
 * {@code keytool} (EC P-256, valid two days) and written as PEM files a {@code redis-server} and a
 * client can read: the certificate serves as the server's certificate and as the CA both sides
 * trust. Nothing outside the JDK is needed.
 */
public final class TlsCertificates {
  private final Path certificate;
  private final Path privateKey;

  private TlsCertificates(Path certificate, Path privateKey) {
    this.certificate = certificate;
    this.privateKey = privateKey;
  }

  /** Makes a fresh key and certificate in a new temporary directory. */
  public static TlsCertificates create() {
    try {
      Path dir = Files.createTempDirectory("ringtail-tls-");
      Path store = dir.resolve("server.p12");
      char[] password = "ringtail".toCharArray();
      Process keytool =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                  "-genkeypair",
                  "-alias",
                  "redis",
                  "-keyalg",
                  "EC",
                  "-groupname",
                  "secp256r1",
                  "-dname",
                  "CN=127.0.0.1",
                  "-ext",
                  "SAN=ip:127.0.0.1,dns:localhost",
                  "-validity",
                  "2",
                  "-storetype",
                  "PKCS12",
                  "-keystore",
                  store.toString(),
                  "-storepass",
                  new String(password))
              .redirectErrorStream(true)
              .start();
      String out = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
        throw new IllegalStateException("keytool failed: " + out);
      }
      KeyStore ks = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(store)) {
        ks.load(in, password);
      }
      Key key = ks.getKey("redis", password);
      Path cert = dir.resolve("redis.crt");
      Path pem = dir.resolve("redis.key");
      Files.writeString(cert, pem("CERTIFICATE", ks.getCertificate("redis").getEncoded()));
      Files.writeString(pem, pem("PRIVATE KEY", key.getEncoded()));
      return new TlsCertificates(cert, pem);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The certificate (PEM): the server's, and the CA a client trusts. */
  public Path certificate() {
    return certificate;
  }

  /** The private key (PKCS#8 PEM). */
  public Path privateKey() {
    return privateKey;
  }

  /**
   * The lines of a {@code redis-server} config that serve TLS on {@code tlsPort} with this
   * certificate (clients need no certificate of their own).
   */
  public List<String> serverConf(int tlsPort) {
    return List.of(
        "tls-port " + tlsPort,
        "tls-cert-file " + certificate,
        "tls-key-file " + privateKey,
        "tls-ca-cert-file " + certificate,
        "tls-auth-clients no");
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }
}
