package examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.FileNotFoundException;
import java.io.FileReader;
import java.util.AbstractMap;
import java.util.ArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@SuppressWarnings({"rawtypes", "unchecked", "deprecation"})
public class CornerCasesTest {

    @Test
    @Timeout(4)
    public void isSurrogateReturnsTrue() throws Throwable {
        String string = "\"\\\n\r\t\u0000\u007f\u00e9\u2028\\u0041 */";
        String string2 = string.trim();
        assertEquals("\"\\\n\r\t\u0000\u007f\u00e9\u2028\\u0041 */", string2);
        String string3 = string2.replace('\'', '\\');
        assertEquals("\"\\\n\r\t", string3);
        boolean flag = Character.isSurrogate('\ud800');
        assertTrue(flag);
    }

    @Test
    @Timeout(4)
    public void isFiniteReturnsTrue() throws Throwable {
        int i = Byte.toUnsignedInt((byte) -128);
        assertEquals(128, i);
        int i2 = Short.toUnsignedInt((short) -32768);
        assertEquals(32768, i2);
        long n = Long.reverse(9223372036854775807L);
        assertEquals(-2L, n);
        float f = Math.abs(Float.NEGATIVE_INFINITY);
        assertEquals(Float.POSITIVE_INFINITY, f, 0.0F);
        double d = Math.ulp(2.2250738585072014e-308);
        assertEquals(5e-324, d, 0.0);
        boolean flag = Float.isFinite(1e-45F);
        assertTrue(flag);
    }

    @Test
    @Timeout(4)
    public void newStack() throws Throwable {
        ArrayList arrayList = new ArrayList();
        int i = ((java.util.List) arrayList).size();
        assertEquals(0, i);
        java.awt.List list = new java.awt.List();
        int i2 = list.getItemCount();
        assertEquals(0, i2);
        Stack stack = new Stack();
        int[] values = new int[5];
        stack.values = values;
        AbstractMap.SimpleEntry simpleEntry = new AbstractMap.SimpleEntry((Object) stack, (Object) arrayList);
        assertNotNull(simpleEntry.getKey());
        Object object = simpleEntry.getValue();
        boolean flag = ((ArrayList) object).isEmpty();
        assertTrue(flag);
    }

    @Test
    @Timeout(4)
    public void readSizeThrowsNullPointerException() throws Throwable {
        Stack stack = null;
        assertThrows(NullPointerException.class, () -> { int unused = stack.size; });
    }

    @Test
    @Timeout(4)
    public void newFileReaderThrowsFileNotFoundException() throws Throwable {
        assertThrows(FileNotFoundException.class, () -> new FileReader("/nonexistent"));
    }

    @Test
    @Timeout(4)
    public void compareToThrowsNullPointerException() throws Throwable {
        Integer integer = Integer.valueOf(3);
        int i = integer.compareTo(integer);
        assertEquals(0, i);
        assertThrows(NullPointerException.class, () -> integer.compareTo((Integer) null));
    }

    @Test
    @Timeout(4)
    public void readSizeThrowsNullPointerException2() throws Throwable {
        Stack stack = null;
        assertThrows(NullPointerException.class, () -> { int unused = stack.size; });
    }
}
