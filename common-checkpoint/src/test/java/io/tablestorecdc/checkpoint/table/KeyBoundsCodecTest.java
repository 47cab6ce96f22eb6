package io.tablestorecdc.checkpoint.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import io.tablestorecdc.checkpoint.table.KeyBounds.Bound;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class KeyBoundsCodecTest {

    @Test
    void boundsOfEveryShapeSurviveTheRoundTrip() {
        List<KeyBounds> shapes =
                List.of(
                        KeyBounds.all(),
                        new KeyBounds(
                                List.of(
                                        PrimaryKeyValue.fromString("zürich"),
                                        PrimaryKeyValue.fromLong(-4)),
                                Optional.of(
                                        new Bound(
                                                PrimaryKeyValue.fromBinary(new byte[] {0, -1}),
                                                true)),
                                Optional.of(
                                        new Bound(
                                                PrimaryKeyValue.fromBinary(new byte[] {9}),
                                                false))),
                        new KeyBounds(
                                List.of(),
                                Optional.empty(),
                                Optional.of(new Bound(PrimaryKeyValue.fromLong(7), true))));

        for (KeyBounds bounds : shapes) {
            assertThat(KeyBoundsCodec.decode(KeyBoundsCodec.encode(bounds))).isEqualTo(bounds);
        }
    }

    @Test
    void anotherVersionAndTrailingBytesAreRefused() {
        byte[] bytes = KeyBoundsCodec.encode(KeyBounds.all());
        byte[] newer = bytes.clone();
        newer[0] = 9;
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 2);

        assertThatThrownBy(() -> KeyBoundsCodec.decode(newer))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(
                        "Key bounds of format version 9 cannot be read by this connector");
        assertThatThrownBy(() -> KeyBoundsCodec.decode(longer))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Key bounds have 2 bytes after their end.");
    }
}
