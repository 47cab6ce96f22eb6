package io.tablestorecdc.checkpoint.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class CellValueTest {

    private static final String TEXT = "grüße-日本-😀";

    @Test
    void aStringWithServerBytesKeepsTheVeryArray() {
        byte[] utf8 = TEXT.getBytes(StandardCharsets.UTF_8);

        CellValue value = CellValue.ofString(TEXT, utf8);

        assertThat(value.utf8()).isSameAs(utf8);
        assertThat(value.asString()).isEqualTo(TEXT);
    }

    @Test
    void aStringWithoutServerBytesEncodesItsUtf8() {
        CellValue value = CellValue.ofString(TEXT);

        assertThat(value.utf8()).isEqualTo(TEXT.getBytes(StandardCharsets.UTF_8));
        assertThat(CellValue.ofString("é").utf8()).containsExactly((byte) 0xC3, (byte) 0xA9);
    }

    @Test
    void serverBytesDoNotChangeEquality() {
        assertThat(CellValue.ofString(TEXT, TEXT.getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(CellValue.ofString(TEXT))
                .hasSameHashCodeAs(CellValue.ofString(TEXT));
    }

    @Test
    void utf8OfANonStringIsAnError() {
        assertThatThrownBy(() -> CellValue.ofInteger(1).utf8())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("INTEGER");
    }

    @Test
    void binaryViewSharesTheBytesAndAsBinaryCopiesThem() {
        CellValue value = CellValue.ofBinary(new byte[] {0, -1, 7});

        byte[] view = value.binaryView();
        byte[] copy = value.asBinary();

        assertThat(view).containsExactly(0, -1, 7);
        assertThat(value.binaryView()).isSameAs(view);
        assertThat(copy).containsExactly(0, -1, 7).isNotSameAs(view);
        copy[0] = 42;
        assertThat(value.binaryView()).containsExactly(0, -1, 7);
    }

    @Test
    void aBinaryValueCopiesWhatItIsGiven() {
        byte[] given = {1, 2};
        CellValue value = CellValue.ofBinary(given);
        given[0] = 9;

        assertThat(value.binaryView()).containsExactly(1, 2);
    }

    @Test
    void binaryViewOfANonBinaryIsAnError() {
        assertThatThrownBy(() -> CellValue.ofString("x").binaryView())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("STRING");
    }

    @Test
    void aCellValueIsItsOwnImmutableCopy() {
        CellValue value = CellValue.ofDouble(1.5);

        assertThat(value.toCellValue()).isSameAs(value);
        assertThat(value.type()).isEqualTo(CellValue.Type.DOUBLE);
    }
}
