package io.tablestorecdc.emulator.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.ClientConfiguration;
import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TableStoreException;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.DescribeTableRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Authentication, signing, compression, fault injection and the admin surface. */
class EmulatorServerITCase {

    static TablestoreEmulator emulator;
    static SyncClient client;

    @BeforeAll
    static void start() {
        emulator =
                TablestoreEmulator.builder()
                        .instanceName("inst")
                        .accessKeyId("id1")
                        .accessKeySecret("secret1")
                        .build()
                        .start();
        client =
                client(
                        emulator.accessKeyId(),
                        emulator.accessKeySecret(),
                        "inst",
                        new ClientConfiguration());
        TableMeta meta = new TableMeta("t");
        meta.addPrimaryKeyColumn("pk", PrimaryKeyType.STRING);
        client.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
    }

    @AfterAll
    static void stop() {
        client.shutdown();
        emulator.close();
    }

    @AfterEach
    void clearFaults() {
        emulator.faults().clear();
    }

    private static SyncClient client(
            String id, String secret, String instance, ClientConfiguration conf) {
        return new SyncClient(emulator.endpoint(), id, secret, instance, conf);
    }

    private static TableStoreException describeWith(SyncClient other) {
        try {
            other.describeTable(new DescribeTableRequest("t"));
        } catch (TableStoreException e) {
            return e;
        } finally {
            other.shutdown();
        }
        throw new AssertionError("expected the call to fail");
    }

    @Test
    void endpointIsLoopback() {
        assertThat(emulator.endpoint()).matches("http://127\\.0\\.0\\.1:\\d+");
        assertThat(emulator.toString()).doesNotContain("secret1");
    }

    @Test
    void wrongSecretUnknownKeyAndWrongInstanceAreAuthFailures() {
        ClientConfiguration conf = new ClientConfiguration();
        List<TableStoreException> errors =
                List.of(
                        describeWith(client("id1", "wrong", "inst", conf)),
                        describeWith(client("nobody", "secret1", "inst", conf)),
                        describeWith(client("id1", "secret1", "other", conf)));

        assertThat(errors)
                .extracting(TableStoreException::getErrorCode)
                .containsOnly("OTSAuthFailed");
        assertThat(errors).extracting(TableStoreException::getHttpStatus).containsOnly(403);
        assertThat(errors).extracting(Throwable::getMessage).noneMatch(m -> m.contains("secret1"));
    }

    @Test
    void compressedRequestsAndResponsesWork() {
        ClientConfiguration conf = new ClientConfiguration();
        conf.setEnableRequestCompression(true);
        conf.setEnableResponseCompression(true);
        conf.setEnableResponseContentMD5Checking(true);
        SyncClient compressing = client("id1", "secret1", "inst", conf);
        try {
            assertThat(
                            compressing
                                    .describeTable(new DescribeTableRequest("t"))
                                    .getTableMeta()
                                    .getTableName())
                    .isEqualTo("t");
        } finally {
            compressing.shutdown();
        }
    }

    @Test
    void retriedErrorInjectedTwiceIsRetriedByTheSdkAndSucceeds() {
        emulator.faults().add(Faults.Rule.error("DescribeTable", "OTSServerBusy", 503, 2));

        assertThat(
                        client.describeTable(new DescribeTableRequest("t"))
                                .getTableMeta()
                                .getTableName())
                .isEqualTo("t");
        assertThat(describeSucceeds()).isTrue();
    }

    @Test
    void nonRetriedErrorSurfacesWithItsCodeOnce() {
        emulator.faults().add(Faults.Rule.error("DescribeTable", "OTSParameterInvalid", 400, 1));

        TableStoreException error =
                describeWith(client("id1", "secret1", "inst", new ClientConfiguration()));

        assertThat(error.getErrorCode()).isEqualTo("OTSParameterInvalid");
        assertThat(error.getHttpStatus()).isEqualTo(400);
        assertThat(describeSucceeds()).isTrue();
    }

    @Test
    void latencyIsAddedToMatchingCalls() {
        emulator.faults().add(Faults.Rule.latency("DescribeTable", 300));

        long start = System.nanoTime();
        client.describeTable(new DescribeTableRequest("t"));

        assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(300);
    }

    @Test
    void acceptedKeysChangeOverTimeAndAnStsKeyNeedsItsToken() {
        emulator.acceptKey("STS.temp-1", "temp-secret-1", "temp-token-1");
        try {
            SyncClient withToken =
                    new SyncClient(
                            emulator.endpoint(),
                            "STS.temp-1",
                            "temp-secret-1",
                            "inst",
                            new ClientConfiguration(),
                            "temp-token-1");
            try {
                withToken.describeTable(new DescribeTableRequest("t"));
            } finally {
                withToken.shutdown();
            }
            assertThat(emulator.acceptedRequestsSignedBy("STS.temp-1")).isEqualTo(1);

            SyncClient noToken =
                    client("STS.temp-1", "temp-secret-1", "inst", new ClientConfiguration());
            assertThat(describeWith(noToken).getErrorCode()).isEqualTo("OTSAuthFailed");
            SyncClient wrongToken =
                    new SyncClient(
                            emulator.endpoint(),
                            "STS.temp-1",
                            "temp-secret-1",
                            "inst",
                            new ClientConfiguration(),
                            "temp-token-0");
            assertThat(describeWith(wrongToken).getMessage()).contains("STS token");
        } finally {
            emulator.revokeKey("STS.temp-1");
        }
        SyncClient revoked =
                new SyncClient(
                        emulator.endpoint(),
                        "STS.temp-1",
                        "temp-secret-1",
                        "inst",
                        new ClientConfiguration(),
                        "temp-token-1");
        assertThat(describeWith(revoked).getMessage()).contains("'STS.temp-1' is unknown");
        assertThat(emulator.acceptedRequestsSignedBy("STS.temp-1")).isEqualTo(1);
    }

    @Test
    void adminHttpAcceptsListsAndRevokesKeys() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        String credentials = emulator.endpoint() + "/_emulator/credentials";

        HttpResponse<String> accepted =
                http.send(
                        HttpRequest.newBuilder(URI.create(credentials))
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                "{\"accessKeyId\":\"id2\",\"accessKeySecret\":\"secret2\"}"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> listed =
                http.send(
                        HttpRequest.newBuilder(URI.create(credentials)).GET().build(),
                        HttpResponse.BodyHandlers.ofString());
        SyncClient second = client("id2", "secret2", "inst", new ClientConfiguration());
        try {
            second.describeTable(new DescribeTableRequest("t"));
        } finally {
            second.shutdown();
        }
        HttpResponse<String> revoked =
                http.send(
                        HttpRequest.newBuilder(URI.create(credentials + "?accessKeyId=id2"))
                                .DELETE()
                                .build(),
                        HttpResponse.BodyHandlers.ofString());

        assertThat(accepted.statusCode()).isEqualTo(200);
        assertThat(listed.body()).contains("\"id1\"", "\"id2\"").doesNotContain("secret");
        assertThat(revoked.statusCode()).isEqualTo(200);
        assertThat(
                        describeWith(client("id2", "secret2", "inst", new ClientConfiguration()))
                                .getErrorCode())
                .isEqualTo("OTSAuthFailed");
    }

    @Test
    void adminHttpAddsAndClearsFaults() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        String faults = emulator.endpoint() + "/_emulator/faults";

        HttpResponse<String> added =
                http.send(
                        HttpRequest.newBuilder(URI.create(faults))
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                "{\"api\":\"DescribeTable\",\"error\":\"OTSParameterInvalid\",\"status\":400}"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        boolean failsWhileArmed = !describeSucceeds();
        HttpResponse<String> cleared =
                http.send(
                        HttpRequest.newBuilder(URI.create(faults)).DELETE().build(),
                        HttpResponse.BodyHandlers.ofString());

        assertThat(added.statusCode()).isEqualTo(200);
        assertThat(failsWhileArmed).isTrue();
        assertThat(cleared.statusCode()).isEqualTo(200);
        assertThat(describeSucceeds()).isTrue();
    }

    @Test
    void adminHttpRejectsBadFaultsAndUnknownRoutes() throws Exception {
        HttpClient http = HttpClient.newHttpClient();

        HttpResponse<String> bad =
                http.send(
                        HttpRequest.newBuilder(
                                        URI.create(emulator.endpoint() + "/_emulator/faults"))
                                .POST(HttpRequest.BodyPublishers.ofString("{\"error\":\"X\"}"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> unknown =
                http.send(
                        HttpRequest.newBuilder(
                                        URI.create(emulator.endpoint() + "/_emulator/nothing"))
                                .GET()
                                .build(),
                        HttpResponse.BodyHandlers.ofString());

        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat((String) Json.parseObject(bad.body()).get("message")).contains("\"api\"");
        assertThat(unknown.statusCode()).isEqualTo(404);
    }

    @Test
    void registeredAdminHandlersReceiveMethodBodyAndQuery() throws Exception {
        emulator.server()
                .registerAdmin(
                        "echo",
                        (method, body, query) ->
                                Json.write(
                                        java.util.Map.of(
                                                "method",
                                                method,
                                                "body",
                                                body,
                                                "table",
                                                query.get("table"))));

        HttpResponse<String> response =
                HttpClient.newHttpClient()
                        .send(
                                HttpRequest.newBuilder(
                                                URI.create(
                                                        emulator.endpoint()
                                                                + "/_emulator/echo?table=a%20b"))
                                        .POST(HttpRequest.BodyPublishers.ofString("x"))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());

        assertThat(Json.parseObject(response.body()))
                .containsEntry("method", "POST")
                .containsEntry("body", "x")
                .containsEntry("table", "a b");
    }

    @Test
    void prefixHandlersServeEveryActionUnderThePrefix() throws Exception {
        emulator.server()
                .register(
                        "custom/",
                        (action, body) -> {
                            throw new EmulatorError("OTSCustom", 418, "served " + action);
                        });

        HttpResponse<byte[]> custom = signedPost("custom/thing");
        HttpResponse<byte[]> unknown = signedPost("NoSuchAction");

        assertThat(custom.statusCode()).isEqualTo(418);
        assertThat(errorCode(custom)).isEqualTo("OTSCustom");
        assertThat(custom.headers().firstValue("x-ots-requestid")).isPresent();
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(errorCode(unknown)).isEqualTo("OTSUnsupportOperation");
    }

    private static String errorCode(HttpResponse<byte[]> response) throws Exception {
        return com.alicloud.openservices.tablestore.core.protocol.OtsInternalApi.Error.parseFrom(
                        response.body())
                .getCode();
    }

    /** A request signed by hand, as the SDK would sign it. */
    private static HttpResponse<byte[]> signedPost(String action) throws Exception {
        java.util.Map<String, String> headers = new java.util.TreeMap<>();
        headers.put("x-ots-instancename", "inst");
        headers.put("x-ots-accesskeyid", "id1");
        headers.put("x-ots-date", java.time.Instant.now().toString());
        headers.put("x-ots-contentmd5", Signatures.contentMd5(new byte[0]));
        headers.put("x-ots-signature", Signatures.request("secret1", action, "POST", headers));
        HttpRequest.Builder request =
                HttpRequest.newBuilder(URI.create(emulator.endpoint() + "/" + action))
                        .POST(HttpRequest.BodyPublishers.noBody());
        headers.forEach(request::header);
        return HttpClient.newHttpClient()
                .send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private static boolean describeSucceeds() {
        try {
            client.describeTable(new DescribeTableRequest("t"));
            return true;
        } catch (TableStoreException e) {
            return false;
        }
    }
}
