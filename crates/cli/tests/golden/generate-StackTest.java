package examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.EmptyStackException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@SuppressWarnings({"rawtypes", "unchecked", "deprecation"})
public class StackTest {

    @Test
    @Timeout(4)
    public void pushThrowsArrayIndexOutOfBoundsException() throws Throwable {
        Stack stack = new Stack();
        stack.push(1830);
        stack.size = -1348;
        assertThrows(ArrayIndexOutOfBoundsException.class, () -> stack.push(1));
    }

    @Test
    @Timeout(4)
    public void push() throws Throwable {
        Stack stack = new Stack();
        stack.size = 3;
        stack.push(1117);
    }

    @Test
    @Timeout(4)
    public void push2() throws Throwable {
        Stack stack = new Stack();
        int i = 1342;
        stack.size = i;
        stack.push(i);
    }

    @Test
    @Timeout(4)
    public void popThrowsEmptyStackException() throws Throwable {
        Stack stack = new Stack();
        assertThrows(EmptyStackException.class, () -> stack.pop());
    }

    @Test
    @Timeout(4)
    public void popThrowsArrayIndexOutOfBoundsException() throws Throwable {
        Stack stack = new Stack();
        stack.size = 1373;
        assertThrows(ArrayIndexOutOfBoundsException.class, () -> stack.pop());
    }

    @Test
    @Timeout(4)
    public void newStack() throws Throwable {
        new Stack();
    }

    @Test
    @Timeout(4)
    public void pushThrowsNullPointerException() throws Throwable {
        Stack stack = new Stack();
        stack.values = (int[]) null;
        Stack stack2 = new Stack();
        int i = stack2.size;
        assertEquals(0, i);
        assertThrows(NullPointerException.class, () -> stack.push(i));
    }
}
