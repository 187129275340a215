package examples;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.FileNotFoundException;
import java.io.FileReader;
import java.util.AbstractMap;
import java.util.ArrayList;
import org.junit.Test;

@SuppressWarnings({"rawtypes", "unchecked", "deprecation"})
public class CornerCasesTest {

    @Test(timeout = 4000)
    public void isSurrogateReturnsTrue() throws Throwable {
        String string = "\"\\\n\r\t\u0000\u007f\u00e9\u2028\\u0041 */";
        String string2 = string.trim();
        assertEquals("\"\\\n\r\t\u0000\u007f\u00e9\u2028\\u0041 */", string2);
        String string3 = string2.replace('\'', '\\');
        assertEquals("\"\\\n\r\t", string3);
        boolean flag = Character.isSurrogate('\ud800');
        assertTrue(flag);
    }

    @Test(timeout = 4000)
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

    @Test(timeout = 4000)
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

    @Test(timeout = 4000)
    public void readSizeThrowsNullPointerException() throws Throwable {
        Stack stack = null;
        try {
            int unused = stack.size;
            fail("Expecting exception: NullPointerException");
        } catch (NullPointerException e) {
            // expected
        }
    }

    @Test(timeout = 4000)
    public void newFileReaderThrowsFileNotFoundException() throws Throwable {
        try {
            new FileReader("/nonexistent");
            fail("Expecting exception: FileNotFoundException");
        } catch (Exception e) {
            assertTrue(e instanceof FileNotFoundException);
        }
    }

    @Test(timeout = 4000)
    public void compareToThrowsNullPointerException() throws Throwable {
        Integer integer = Integer.valueOf(3);
        int i = integer.compareTo(integer);
        assertEquals(0, i);
        try {
            integer.compareTo((Integer) null);
            fail("Expecting exception: NullPointerException");
        } catch (NullPointerException e) {
            // expected
        }
    }

    @Test(timeout = 4000)
    public void readSizeThrowsNullPointerException2() throws Throwable {
        Stack stack = null;
        try {
            int unused = stack.size;
            fail("Expecting exception: NullPointerException");
        } catch (NullPointerException e) {
            // expected
        }
    }
}
