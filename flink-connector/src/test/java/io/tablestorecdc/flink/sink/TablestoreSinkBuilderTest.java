package io.tablestorecdc.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.write.RowWrite;
import java.io.ByteArrayOutputStream;
import java.io.ObjectOutputStream;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Every validation message of the sink builder. */
class TablestoreSinkBuilderTest {

    private static final String SECRET = "s3cr3t-value";

    private static TablestoreSinkBuilder<RowWrite> complete() {
        return TablestoreSink.<RowWrite>builder()
                .setEndpoint("https://myinstance.cn-hangzhou.ots.aliyuncs.com")
                .setInstanceName("myinstance")
                .setCredentials("AKID", SECRET)
                .setTableName("orders")
                .setConverter(RowWriteConverter.identity());
    }

    @Test
    void buildsWithTheDefaults() throws Exception {
        TablestoreSink<RowWrite> sink = complete().build();
        assertThat(sink.tableName()).isEqualTo("orders");
        assertThat(sink.settings().maxRows()).isEqualTo(200);
        assertThat(sink.settings().maxRetries()).isEqualTo(3);
        assertThat(sink.settings().ignoreDelete()).isFalse();
        assertThat(sink.flushInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(sink.toString())
                .contains("access.key.id=AKID", "table.name=orders")
                .doesNotContain(SECRET);
        new ObjectOutputStream(new ByteArrayOutputStream()).writeObject(sink);
    }

    @Test
    void takesEverySetting() {
        TablestoreSink<RowWrite> sink =
                complete()
                        .setBufferFlushMaxRows(50)
                        .setBufferFlushInterval(Duration.ZERO)
                        .setMaxRetries(0)
                        .setIgnoreDelete(true)
                        .build();
        assertThat(sink.settings().maxRows()).isEqualTo(50);
        assertThat(sink.settings().maxRetries()).isZero();
        assertThat(sink.settings().ignoreDelete()).isTrue();
        assertThat(sink.flushInterval()).isZero();
    }

    @Test
    void namesEveryMissingConnectionSettingWithItsSetter() {
        assertThatThrownBy(
                        () ->
                                TablestoreSink.<RowWrite>builder()
                                        .setConverter(RowWriteConverter.identity())
                                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Invalid options for the Tablestore sink")
                .hasMessageContaining("Missing required option 'endpoint': call setEndpoint(")
                .hasMessageContaining("'table.name': call setTableName(...)")
                .hasMessageContaining("'access.key.id': call setCredentials(id, secret)");
    }

    @Test
    void refusesSettingsOutsideTheirRange() {
        assertThatThrownBy(() -> complete().setBufferFlushMaxRows(201).build())
                .hasMessageContaining("setBufferFlushMaxRows(201): use 1 to 200");
        assertThatThrownBy(() -> complete().setBufferFlushInterval(Duration.ofSeconds(-1)).build())
                .hasMessageContaining("use a duration of zero or more");
        assertThatThrownBy(() -> complete().setMaxRetries(-2).build())
                .hasMessageContaining("setMaxRetries(-2): use 0 or more");
        assertThatThrownBy(() -> complete().setConverter(null).build())
                .hasMessageContaining("No converter set: call setConverter(...)");
    }

    @Test
    void aBadEndpointNeverEchoesTheSecret() {
        assertThatThrownBy(() -> complete().setEndpoint("ftp://nowhere").build())
                .hasMessageContaining("Invalid endpoint 'ftp://nowhere'")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(SECRET));
    }
}
