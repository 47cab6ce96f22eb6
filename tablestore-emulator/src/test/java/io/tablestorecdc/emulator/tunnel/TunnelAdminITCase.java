package io.tablestorecdc.emulator.tunnel;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.model.tunnel.TunnelType;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ConnectTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.HeartbeatRequest;
import com.alicloud.openservices.tablestore.tunnel.worker.TunnelClientConfig;
import io.tablestorecdc.emulator.server.Json;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The tunnel admin routes over HTTP with JSON bodies. */
class TunnelAdminITCase {

    @RegisterExtension static final EmulatorBed bed = EmulatorBed.perClass();
    static final HttpClient HTTP = HttpClient.newHttpClient();

    private static HttpResponse<String> call(String method, String path, String body)
            throws IOException, InterruptedException {
        HttpRequest request =
                HttpRequest.newBuilder(URI.create(bed.emulator().endpoint() + "/_emulator/" + path))
                        .method(method, HttpRequest.BodyPublishers.ofString(body))
                        .build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void partitionsSplitAndMergeOverHttp() throws Exception {
        String table = bed.newTable("tunnel_t");

        HttpResponse<String> split =
                call("POST", "split", "{\"table\":\"" + table + "\",\"at\":{\"id\":\"m\"}}");
        assertThat(split.statusCode()).isEqualTo(200);
        assertThat(Json.parse(split.body())).isEqualTo(List.of("p-1", "p-2"));

        HttpResponse<String> listed = call("GET", "partitions?table=" + table, "");
        assertThat(Json.parse(listed.body()))
                .isEqualTo(
                        Json.parse(
                                "[{\"id\":\"p-0\",\"start\":null,\"end\":null,\"status\":\"ENDED\",\"parents\":[]},"
                                        + "{\"id\":\"p-1\",\"start\":null,\"end\":{\"id\":\"m\"},\"status\":\"ACTIVE\",\"parents\":[\"p-0\"]},"
                                        + "{\"id\":\"p-2\",\"start\":{\"id\":\"m\"},\"end\":null,\"status\":\"ACTIVE\",\"parents\":[\"p-0\"]}]"));

        HttpResponse<String> merge =
                call("POST", "merge", "{\"table\":\"" + table + "\",\"at\":{\"id\":\"m\"}}");
        assertThat(Json.parse(merge.body())).isEqualTo(List.of("p-3"));
    }

    @Test
    void badAdminInputIsAParameterError() throws Exception {
        String table = bed.newTable("tunnel_t");

        HttpResponse<String> noSuchStart =
                call("POST", "merge", "{\"table\":\"" + table + "\",\"at\":{\"id\":\"q\"}}");
        HttpResponse<String> wrongColumn =
                call("POST", "split", "{\"table\":\"" + table + "\",\"at\":{\"nope\":1}}");
        HttpResponse<String> noTable = call("GET", "partitions?table=missing", "");

        assertThat(noSuchStart.statusCode()).isEqualTo(400);
        assertThat(noSuchStart.body()).contains("OTSParameterInvalid", "starts at");
        assertThat(wrongColumn.body()).contains("no primary-key column nope");
        assertThat(noTable.body()).contains("does not exist");
    }

    @Test
    void expiringClientsOverHttpDropsThem() throws Exception {
        String table = bed.newTable("tunnel_t");
        String tunnelId = bed.createTunnel(table, "admin", TunnelType.Stream);
        String clientId =
                bed.tunnels()
                        .connectTunnel(
                                new ConnectTunnelRequest(
                                        tunnelId, new TunnelClientConfig(300, "t")))
                        .getClientId();

        HttpResponse<String> expired = call("POST", "clients/expire", "{\"tunnel\":\"admin\"}");

        assertThat(Json.parse(expired.body())).isEqualTo(Map.of("expired", 1L));
        try {
            bed.tunnels().heartbeat(new HeartbeatRequest(tunnelId, clientId, new ArrayList<>()));
            throw new AssertionError("the expired client's heartbeat must fail");
        } catch (com.alicloud.openservices.tablestore.TableStoreException e) {
            assertThat(e.getErrorCode()).isEqualTo("OTSResourceGone");
        }
    }
}
