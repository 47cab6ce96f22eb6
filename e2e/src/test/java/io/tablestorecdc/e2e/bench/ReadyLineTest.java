package io.tablestorecdc.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReadyLineTest {

    @Test
    void readyLineGivesEndpointAndInstance() {
        assertThat(
                        ReadyLine.parse(
                                "tablestore-emulator ready endpoint=http://127.0.0.1:40123"
                                        + " instance=emulator\n"))
                .contains(new ReadyLine("http://127.0.0.1:40123", "emulator"));
    }

    @Test
    void otherLinesAreNotReady() {
        assertThat(ReadyLine.parse("SLF4J: No SLF4J providers were found.")).isEmpty();
        assertThat(ReadyLine.parse("")).isEmpty();
        assertThat(ReadyLine.parse("tablestore-emulator ready instance=emulator")).isEmpty();
        assertThat(ReadyLine.parse("tablestore-emulator ready endpoint= instance=emulator"))
                .isEmpty();
    }

    @Test
    void splitKeysTakeTheAdminJsonForm() {
        var key =
                PrimaryKeyBuilder.createPrimaryKeyBuilder()
                        .addPrimaryKeyColumn("id", PrimaryKeyValue.fromString("row-000000042"))
                        .addPrimaryKeyColumn("n", PrimaryKeyValue.fromLong(7))
                        .build();

        assertThat(ChildEmulator.keyJson(key)).isEqualTo(Map.of("id", "row-000000042", "n", 7L));
        assertThat(JsonText.render(ChildEmulator.keyJson(BenchTable.key(5))))
                .contains("\"id\"")
                .contains("\"row-000000005\"");
    }

    @Test
    void aChildThatEndsBeforeItServesFailsNamingItsLog() {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();

        assertThatThrownBy(() -> ChildEmulator.start(List.of(java, "-version")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("ended with exit code 0 before it served")
                .hasMessageContaining("see its log /")
                .hasMessageContaining("tablestore-cdc-bench-emulator-");
    }
}
