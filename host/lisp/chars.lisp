;; SPDX-License-Identifier: MIT
;;; chars.lisp --- a character-property table built at load time.
;;
;; For each character below `char-table-size', a property list with its
;; category, display width and case partner, computed in Lisp from
;; `char-class' (itself a C table computed at init) and Unicode block
;; ranges; plus per-category counts.

(defconst char-table-size 8192
  "Number of characters the property table covers.")

(defconst char-blocks
  '((#x0080 . latin-1) (#x0100 . latin-extended) (#x0250 . ipa)
    (#x0300 . combining) (#x0370 . greek) (#x0400 . cyrillic)
    (#x0530 . armenian) (#x0590 . hebrew) (#x0600 . arabic)
    (#x0900 . indic) (#x0E00 . thai) (#x1100 . hangul-jamo)
    (#x2000 . punctuation) (#x2070 . super-sub) (#x20A0 . currency)
    (#x2100 . letterlike) (#x2190 . arrows) (#x2200 . math)
    (#x2500 . box-drawing) (#x2600 . symbols) (#x2700 . dingbats))
  "Start of each Unicode block the table knows, in increasing order.")

(defun char-block (c)
  "The block symbol of character C."
  (let ((block 'ascii))
    (dolist (b char-blocks)
      (when (>= c (car b)) (setq block (cdr b))))
    block))

(defun char-category (c &optional block)
  "The category of character C: a symbol.  BLOCK is C's block if known."
  (let ((class (char-class c))
        (block (or block (char-block c))))
    (cond ((< c 32) 'control)
          ((= c 127) 'control)
          ((/= 0 (logand class 1)) 'space)
          ((/= 0 (logand class 2)) 'digit)
          ((/= 0 (logand class 8)) 'upper)
          ((/= 0 (logand class 16)) 'lower)
          ((/= 0 (logand class 32)) 'punctuation)
          ((eq block 'combining) 'mark)
          (t block))))

(defun char-display-width (c &optional block)
  "Columns character C occupies.  BLOCK is C's block if known."
  (cond ((< c 32) 2)
        ((eq (or block (char-block c)) 'combining) 0)
        ((and (>= c #x1100) (< c #x1160)) 2)
        (t 1)))

(defvar char-property-table (make-vector char-table-size nil)
  "Vector from character code to a property list.")

(defvar char-category-counts (make-hash-table :test 'eq)
  "From each category to the number of characters in it.")

(dotimes (c char-table-size)
  (let* ((block (char-block c))
         (category (char-category c block)))
    (aset char-property-table c
          (list 'category category
                'block block
                'width (char-display-width c block)
                'case (cond ((eq category 'upper) (+ c 32))
                            ((eq category 'lower) (- c 32)))))
    (puthash category (1+ (gethash category char-category-counts 0))
             char-category-counts)))

(defun char-property (c prop)
  "Property PROP of character C, or nil."
  (and (< c char-table-size) (plist-get (aref char-property-table c) prop)))
