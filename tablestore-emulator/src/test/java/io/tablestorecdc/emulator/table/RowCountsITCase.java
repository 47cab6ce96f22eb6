package io.tablestorecdc.emulator.table;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RowDeleteChange;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.RowUpdateChange;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import io.tablestorecdc.emulator.AppliedOnceWrites;
import io.tablestorecdc.emulator.TablestoreEmulator;
import io.tablestorecdc.emulator.server.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The counting routes a consumer in another process is measured by: rows and requests. */
class RowCountsITCase {

    private static TablestoreEmulator emulator;
    private static SyncClient sync;

    @BeforeAll
    static void start() {
        emulator = TablestoreEmulator.builder().build().start();
        sync = emulator.newSyncClient();
    }

    @AfterAll
    static void stop() {
        sync.shutdown();
        emulator.close();
    }

    @Test
    void rowsCountsWritesDeletesAndWhatIsLeftPerTable() throws Exception {
        create("counted");
        create("other");
        for (String id : new String[] {"a", "b", "c"}) {
            AppliedOnceWrites.put(sync, put("counted", id));
        }
        RowUpdateChange update = new RowUpdateChange("counted", key("a"));
        update.put(new Column("v", ColumnValue.fromLong(2)));
        AppliedOnceWrites.update(sync, update);
        AppliedOnceWrites.delete(sync, new RowDeleteChange("counted", key("b")));
        AppliedOnceWrites.put(sync, put("other", "x"));

        Map<String, Object> counted = Json.parseObject(get("rows?table=counted").body());
        Map<String, Object> missing = Json.parseObject(get("rows?table=nothing").body());

        assertThat(counted)
                .containsEntry("table", "counted")
                .containsEntry("written", 4L)
                .containsEntry("deleted", 1L)
                .containsEntry("rows", 2L);
        assertThat(missing).containsEntry("written", 0L).containsEntry("rows", 0L);
        assertThat(Json.parseObject(get("rows?table=counted&live=false").body()))
                .containsEntry("written", 4L)
                .containsEntry("deleted", 1L)
                .doesNotContainKey("rows");
    }

    @Test
    void liveTakesTrueOrFalse() throws Exception {
        HttpResponse<String> answer = get("rows?table=counted&live=maybe");

        assertThat(answer.statusCode()).isEqualTo(400);
        assertThat(answer.body()).contains("live=true or live=false, not maybe");
    }

    @Test
    void requestsListsEveryActionsCountAsTheServerCountsIt() throws Exception {
        create("asked");
        AppliedOnceWrites.put(sync, put("asked", "a"));

        @SuppressWarnings("unchecked")
        Map<String, Object> requests =
                (Map<String, Object>) Json.parseObject(get("requests").body()).get("requests");

        assertThat(requests.get("PutRow"))
                .isEqualTo(emulator.server().requestCount("PutRow"))
                .isNotEqualTo(0L);
        assertThat(requests.get("CreateTable"))
                .isEqualTo(emulator.server().requestCount("CreateTable"));
    }

    @Test
    void rowsWithoutATableNamesTheQuery() throws Exception {
        HttpResponse<String> answer = get("rows");

        assertThat(answer.statusCode()).isEqualTo(400);
        assertThat(answer.body()).contains("/_emulator/rows?table=T");
    }

    private static HttpResponse<String> get(String route) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(
                                        URI.create(emulator.endpoint() + "/_emulator/" + route))
                                .GET()
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    private static void create(String table) {
        TableMeta meta = new TableMeta(table);
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
        sync.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
    }

    private static RowPutChange put(String table, String id) {
        RowPutChange change = new RowPutChange(table, key(id));
        change.addColumn(new Column("v", ColumnValue.fromLong(1)));
        return change;
    }

    private static PrimaryKey key(String id) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("id", PrimaryKeyValue.fromString(id))
                .build();
    }
}
